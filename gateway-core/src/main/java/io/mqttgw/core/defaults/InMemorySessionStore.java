package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.spi.Subscriptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * its own monitor, so devices never contend with each other.
 *
 * <p>At most {@code session.max-sessions} sessions are kept: the sessions of disconnected devices are also listed in
 * disconnect order (a {@link LinkedHashMap} under its own short lock, O(1) per call), so when a new session would pass
 * the bound, the one disconnected longest ago is deleted (counted), and expired sessions are found at the head of that
 * order a few at a time on each open: nothing scans all sessions on the calling event loop. The sessions of connected
 * devices are never evicted; if they alone fill the bound, a new session is kept anyway (connections are bounded
 * elsewhere). A session's expiry is the interval its device asked for (MQTT 5.0) capped at {@code session.expiry}, so
 * a short-lived session may sit behind a longer-lived one in that order: it is treated as gone as soon as it expires
 * (open and append check), and its memory is taken back when the head of the order reaches it or the bound evicts it.
 * Retained messages are kept in a topic tree ({@link RetainedTopics}): a wildcard SUBSCRIBE walks only
 * the branches its filter can match, never every retained message. Lock order: a map bin, then a session's monitor; the
 * order lock is never taken inside either (a session's
 * monitor is taken inside it, for a read).
 */
public final class InMemorySessionStore implements SessionStore {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    /** Expired sessions removed from the head of the disconnect order per open, at most. */
    private static final int EXPIRE_PER_OPEN = 8;

    /** One persistent session; guarded by its own monitor. */
    private static final class Session {
        /** Immutable, shared with the connection that saved it (no copy per side). */
        Subscriptions subscriptions = Subscriptions.NONE;
        final ArrayDeque<StoredMessage> pending = new ArrayDeque<>(2);
        /** 0 while the device is connected. */
        long expiresAtMillis;
        /** Epoch of the connection that opened it last. */
        long epoch;
    }

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final RetainedTopics retained = new RetainedTopics();
    /** Sessions of disconnected devices, oldest disconnect first; guarded by itself. May hold stale entries. */
    private final LinkedHashMap<String, Session> disconnectOrder = new LinkedHashMap<>();
    private final long expiryMillis;
    private final int maxPending;
    private final int maxRetained;
    private final int maxSessions;
    private final LongSupplier clock;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();

    public InMemorySessionStore(long expiryMillis, int maxPending, int maxRetained, LongSupplier clock) {
        this(expiryMillis, maxPending, maxRetained, Integer.MAX_VALUE, clock);
    }

    public InMemorySessionStore(long expiryMillis, int maxPending, int maxRetained, int maxSessions,
                                LongSupplier clock) {
        this.expiryMillis = expiryMillis;
        this.maxPending = maxPending;
        this.maxRetained = maxRetained;
        this.maxSessions = maxSessions;
        this.clock = clock;
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        long now = clock.getAsLong();
        removeExpired(now);
        if (cleanStart) {
            sessions.remove(clientId);
            forget(clientId);
            if (expiryMillis == 0) {
                return CompletableFuture.completedFuture(StoredSession.NONE);
            }
        }
        boolean[] present = {true};
        // marked connected inside the bin's lock, so an eviction (which decides in the same lock) never deletes a
        // session that is being resumed
        Session session = sessions.compute(clientId, (id, s) -> {
            if (s == null || expired(s, now)) {
                present[0] = false;
                s = new Session();
            }
            synchronized (s) {
                s.expiresAtMillis = 0;
                s.epoch = epoch;
            }
            return s;
        });
        forget(clientId);
        if (!present[0]) {
            evictWhileFull();
        }
        synchronized (session) {
            return CompletableFuture.completedFuture(new StoredSession(present[0],
                    session.subscriptions, new ArrayList<>(session.pending)));
        }
    }

    private void forget(String clientId) {
        synchronized (disconnectOrder) {
            disconnectOrder.remove(clientId);
        }
    }

    /** Past the bound: deletes sessions of disconnected devices, the one disconnected longest ago first. */
    private void evictWhileFull() {
        while (sessions.size() > maxSessions) {
            Map.Entry<String, Session> oldest = pollOldest();
            if (oldest == null) {
                return;
            }
            if (removeIfDisconnected(oldest.getKey(), oldest.getValue(), Long.MAX_VALUE)) {
                evicted.incrementAndGet();
            }
        }
    }

    /** Expired sessions sit at the head of the disconnect order (one expiry for all): a few are removed per call. */
    private void removeExpired(long now) {
        for (int i = 0; i < EXPIRE_PER_OPEN; i++) {
            Map.Entry<String, Session> oldest;
            synchronized (disconnectOrder) {
                if (disconnectOrder.isEmpty()) {
                    return;
                }
                oldest = disconnectOrder.entrySet().iterator().next();
                long expiresAt;
                synchronized (oldest.getValue()) {
                    expiresAt = oldest.getValue().expiresAtMillis;
                }
                if (expiresAt > now) {
                    // not expired: nothing behind it is either (one expiry for all)
                    return;
                }
                // expired, or a stale entry of a device that reconnected (0)
                disconnectOrder.remove(oldest.getKey());
            }
            removeIfDisconnected(oldest.getKey(), oldest.getValue(), now);
        }
    }

    private Map.Entry<String, Session> pollOldest() {
        synchronized (disconnectOrder) {
            var it = disconnectOrder.entrySet().iterator();
            if (!it.hasNext()) {
                return null;
            }
            Map.Entry<String, Session> e = it.next();
            it.remove();
            return Map.entry(e.getKey(), e.getValue());
        }
    }

    /**
     * Deletes the session of {@code clientId} if it is still {@code expected} and its device is disconnected (and, with
     * {@code now} below {@code Long.MAX_VALUE}, expired); decided in the map bin's lock, so a concurrent open wins.
     */
    private boolean removeIfDisconnected(String clientId, Session expected, long now) {
        boolean[] removed = {false};
        sessions.computeIfPresent(clientId, (id, s) -> {
            if (s != expected) {
                return s;
            }
            synchronized (s) {
                boolean disconnected = s.expiresAtMillis != 0;
                if (disconnected && (now == Long.MAX_VALUE || s.expiresAtMillis <= now)) {
                    removed[0] = true;
                    return null;
                }
                return s;
            }
        });
        return removed[0];
    }

    @Override
    public CompletionStage<Optional<SessionSummary>> describe(String clientId) {
        Session s = sessions.get(clientId);
        if (s == null || expired(s, clock.getAsLong())) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        synchronized (s) {
            return CompletableFuture.completedFuture(Optional.of(new SessionSummary(s.expiresAtMillis == 0,
                    s.expiresAtMillis, s.subscriptions, s.pending.size())));
        }
    }

    private static boolean expired(Session s, long now) {
        synchronized (s) {
            return s.expiresAtMillis != 0 && s.expiresAtMillis <= now;
        }
    }

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        Session s = sessions.get(clientId);
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
                removeIfDisconnected(clientId, s, Long.MAX_VALUE);
                forget(clientId);
                return DONE;
            }
            synchronized (disconnectOrder) {
                // moved to the tail: the most recently disconnected
                disconnectOrder.remove(clientId);
                disconnectOrder.put(clientId, s);
            }
        }
        return DONE;
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions) {
        Session s = sessions.get(clientId);
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
        return evicted.get();
    }

    public int retainedCount() {
        return retained.size();
    }
}
