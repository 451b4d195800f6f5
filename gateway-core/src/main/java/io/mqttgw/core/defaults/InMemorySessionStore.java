package io.mqttgw.core.defaults;

import io.mqttgw.core.protocol.TopicFilters;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.SessionStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Sessions and retained messages of a single node, in memory: they survive a reconnect to this node, not a restart
 * nor a move to another node (use {@code session.provider: redis} for that). Thread-safe; each session is guarded by
 * its own monitor, so devices never contend with each other. Expired sessions are swept every few thousand opens.
 */
public final class InMemorySessionStore implements SessionStore {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    private static final int SWEEP_EVERY = 4096;

    /** One persistent session; guarded by its own monitor. */
    private static final class Session {
        Map<String, Integer> subscriptions = Map.of();
        final ArrayDeque<StoredMessage> pending = new ArrayDeque<>(2);
        /** 0 while the device is connected. */
        long expiresAtMillis;
        /** Epoch of the connection that opened it last. */
        long epoch;
    }

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, DownlinkMessage> retained = new ConcurrentHashMap<>();
    private final long expiryMillis;
    private final int maxPending;
    private final int maxRetained;
    private final LongSupplier clock;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();

    public InMemorySessionStore(long expiryMillis, int maxPending, int maxRetained, LongSupplier clock) {
        this.expiryMillis = expiryMillis;
        this.maxPending = maxPending;
        this.maxRetained = maxRetained;
        this.clock = clock;
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanSession, long epoch) {
        if (calls.incrementAndGet() % SWEEP_EVERY == 0) {
            long now = clock.getAsLong();
            sessions.values().removeIf(s -> expired(s, now));
        }
        if (cleanSession) {
            sessions.remove(clientId);
            return CompletableFuture.completedFuture(StoredSession.NONE);
        }
        long now = clock.getAsLong();
        boolean[] present = {true};
        Session session = sessions.compute(clientId, (id, s) -> {
            if (s == null || expired(s, now)) {
                present[0] = false;
                return new Session();
            }
            return s;
        });
        synchronized (session) {
            session.expiresAtMillis = 0;
            session.epoch = epoch;
            return CompletableFuture.completedFuture(new StoredSession(present[0],
                    new LinkedHashMap<>(session.subscriptions), new ArrayList<>(session.pending)));
        }
    }

    private static boolean expired(Session s, long now) {
        synchronized (s) {
            return s.expiresAtMillis != 0 && s.expiresAtMillis <= now;
        }
    }

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch) {
        Session s = sessions.get(clientId);
        if (s != null) {
            synchronized (s) {
                if (s.epoch != epoch) {
                    return DONE;
                }
                s.expiresAtMillis = clock.getAsLong() + expiryMillis;
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Integer> subscriptions) {
        Session s = sessions.get(clientId);
        if (s != null) {
            synchronized (s) {
                s.subscriptions = Map.copyOf(subscriptions);
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Append> append(DownlinkMessage message) {
        Session s = sessions.get(message.clientId());
        if (s == null || expired(s, clock.getAsLong())) {
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
        Session s = sessions.get(clientId);
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
        if (retained.size() >= maxRetained && !retained.containsKey(message.topic())) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "session.max-retained (" + maxRetained + ") retained messages are stored already"));
        }
        retained.put(message.topic(), message);
        return DONE;
    }

    @Override
    public CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
        List<DownlinkMessage> matching = new ArrayList<>();
        if (topicFilter.indexOf('+') < 0 && topicFilter.indexOf('#') < 0) {
            DownlinkMessage m = retained.get(topicFilter);
            if (m != null) {
                matching.add(m);
            }
        } else {
            retained.forEach((topic, m) -> {
                if (TopicFilters.matches(topicFilter, topic)) {
                    matching.add(m);
                }
            });
        }
        return CompletableFuture.completedFuture(matching);
    }

    public int sessions() {
        return sessions.size();
    }

    public int retainedCount() {
        return retained.size();
    }
}
