package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.spi.Subscriptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Sessions and retained messages of a single node, in memory: they survive a reconnect to this node, not a restart
 * nor a move to another node (use {@code session.provider: redis} for that). Thread-safe; each session is guarded by
 * its own monitor ({@link MemorySession}), so devices never contend with each other. At most
 * {@code session.max-sessions} sessions are kept, and expired ones are taken back a few at a time
 * ({@link SessionEviction}). A session's expiry is the interval its device asked for (MQTT 5.0) capped at
 * {@code session.expiry}; it is treated as gone as soon as it expires (open and append check). Retained messages are
 * kept in a topic tree ({@link RetainedTopics}): a wildcard SUBSCRIBE walks only the branches its filter can match,
 * never every retained message.
 */
public final class InMemorySessionStore implements SessionStore {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final ConcurrentHashMap<String, MemorySession> sessions = new ConcurrentHashMap<>();
    private final RetainedTopics retained = new RetainedTopics();
    private final long expiryMillis;
    private final int maxPending;
    private final int maxRetained;
    private final SessionEviction eviction;
    private final LongSupplier clock;
    private final AtomicLong ids = new AtomicLong();

    public InMemorySessionStore(long expiryMillis, int maxPending, int maxRetained, LongSupplier clock) {
        this(expiryMillis, maxPending, maxRetained, Integer.MAX_VALUE, clock);
    }

    public InMemorySessionStore(long expiryMillis, int maxPending, int maxRetained, int maxSessions,
                                LongSupplier clock) {
        this.expiryMillis = expiryMillis;
        this.maxPending = maxPending;
        this.maxRetained = maxRetained;
        this.eviction = new SessionEviction(sessions, maxSessions);
        this.clock = clock;
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        long now = clock.getAsLong();
        eviction.removeExpired(now);
        if (cleanStart) {
            sessions.remove(clientId);
            eviction.forget(clientId);
            if (expiryMillis == 0) {
                return CompletableFuture.completedFuture(StoredSession.NONE);
            }
        }
        boolean[] present = {true};
        // marked connected inside the bin's lock, so an eviction (which decides in the same lock) never deletes a
        // session that is being resumed
        MemorySession session = sessions.compute(clientId, (id, s) -> {
            if (s == null || s.expired(now)) {
                present[0] = false;
                s = new MemorySession();
            }
            synchronized (s) {
                s.expiresAtMillis = 0;
                s.epoch = epoch;
            }
            return s;
        });
        eviction.forget(clientId);
        if (!present[0]) {
            eviction.evictWhileFull();
        }
        synchronized (session) {
            return CompletableFuture.completedFuture(new StoredSession(present[0],
                    session.subscriptions, new ArrayList<>(session.pending)));
        }
    }

    @Override
    public CompletionStage<Optional<SessionSummary>> describe(String clientId) {
        MemorySession s = sessions.get(clientId);
        if (s == null || s.expired(clock.getAsLong())) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        synchronized (s) {
            return CompletableFuture.completedFuture(Optional.of(new SessionSummary(s.expiresAtMillis == 0,
                    s.expiresAtMillis, s.subscriptions, s.pending.size())));
        }
    }

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        MemorySession s = sessions.get(clientId);
        if (s != null) {
            synchronized (s) {
                if (s.epoch != epoch) {
                    return DONE;
                }
                if (expiryMillis <= 0) {
                    // MQTT 5.0 session expiry 0: the session ends with its connection
                    s.expiresAtMillis = Long.MIN_VALUE;
                } else {
                    s.expiresAtMillis = clock.getAsLong() + Math.min(expiryMillis, this.expiryMillis);
                }
            }
            if (expiryMillis <= 0) {
                eviction.endNow(clientId, s);
            } else {
                eviction.disconnected(clientId, s);
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions) {
        MemorySession s = sessions.get(clientId);
        if (s != null) {
            synchronized (s) {
                // a copy in subscription order (Map.copyOf would lose it)
                s.subscriptions = Subscriptions.copyOf(subscriptions);
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Append> append(DownlinkMessage message) {
        MemorySession s = sessions.get(message.clientId());
        if (s == null || s.expired(clock.getAsLong())) {
            return CompletableFuture.completedFuture(Append.NO_SESSION);
        }
        synchronized (s) {
            if (s.pending.size() >= maxPending) {
                return CompletableFuture.completedFuture(Append.FULL);
            }
            String id = Long.toString(ids.incrementAndGet(), 36);
            s.pending.add(new StoredMessage(id, message));
            return CompletableFuture.completedFuture(Append.stored(id));
        }
    }

    @Override
    public CompletionStage<Void> remove(String clientId, String messageId) {
        MemorySession s = sessions.get(clientId);
        if (s != null) {
            synchronized (s) {
                s.pending.removeIf(m -> m.id().equals(messageId));
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Void> retain(DownlinkMessage message) {
        if (message.payload().length == 0) {
            retained.remove(message.topic());
            return DONE;
        }
        if (!retained.put(message, maxRetained)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "session.max-retained (" + maxRetained + ") retained messages are stored already"));
        }
        return DONE;
    }

    @Override
    public CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
        List<DownlinkMessage> matching = new ArrayList<>();
        retained.match(topicFilter, matching);
        return CompletableFuture.completedFuture(matching);
    }

    public int sessions() {
        return sessions.size();
    }

    /** Sessions deleted to stay within {@code session.max-sessions}. */
    public long evictedCount() {
        return eviction.evictedCount();
    }

    public int retainedCount() {
        return retained.size();
    }
}
