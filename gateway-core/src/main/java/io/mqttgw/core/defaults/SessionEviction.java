package io.mqttgw.core.defaults;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps {@link InMemorySessionStore} within {@code session.max-sessions} and takes back the memory of expired sessions.
 * The sessions of disconnected devices are listed in disconnect order (a {@link LinkedHashMap} under its own short
 * lock, O(1) per call), so when a new session would pass the bound, the one disconnected longest ago is deleted
 * (counted), and expired sessions are found at the head of that order a few at a time on each open: nothing scans all
 * sessions on the calling event loop. The sessions of connected devices are never evicted; if they alone fill the
 * bound, a new session is kept anyway (connections are bounded elsewhere). A session with a shorter expiry may sit
 * behind a longer-lived one in that order: its memory is taken back when the head of the order reaches it or the bound
 * evicts it (the store treats it as gone as soon as it expires).
 *
 * <p>Thread-safe, called by whichever thread calls the store. Lock order: a map bin, then a session's monitor; the
 * order lock is never taken inside either (a session's monitor is taken inside it, for a read).
 */
final class SessionEviction {
    /** Expired sessions removed from the head of the disconnect order per open, at most. */
    private static final int EXPIRE_PER_OPEN = 8;

    private final ConcurrentHashMap<String, MemorySession> sessions;
    private final int maxSessions;
    /** Sessions of disconnected devices, oldest disconnect first; guarded by itself. May hold stale entries. */
    private final LinkedHashMap<String, MemorySession> disconnectOrder = new LinkedHashMap<>();
    private final AtomicLong evicted = new AtomicLong();

    SessionEviction(ConcurrentHashMap<String, MemorySession> sessions, int maxSessions) {
        this.sessions = sessions;
        this.maxSessions = maxSessions;
    }

    /** The device of {@code clientId} connected again, or its session was deleted: no longer in the order. */
    void forget(String clientId) {
        synchronized (disconnectOrder) {
            disconnectOrder.remove(clientId);
        }
    }

    /** The device of {@code session} disconnected and its session stays: the most recently disconnected. */
    void disconnected(String clientId, MemorySession session) {
        synchronized (disconnectOrder) {
            disconnectOrder.remove(clientId);
            disconnectOrder.put(clientId, session);
        }
    }

    /** Deletes {@code session} now if its device is still disconnected (expiry 0: it ends with its connection). */
    void endNow(String clientId, MemorySession session) {
        removeIfDisconnected(clientId, session, Long.MAX_VALUE);
        forget(clientId);
    }

    /** Past the bound: deletes sessions of disconnected devices, the one disconnected longest ago first. */
    void evictWhileFull() {
        while (sessions.size() > maxSessions) {
            Map.Entry<String, MemorySession> oldest = pollOldest();
            if (oldest == null) {
                return;
            }
            if (removeIfDisconnected(oldest.getKey(), oldest.getValue(), Long.MAX_VALUE)) {
                evicted.incrementAndGet();
            }
        }
    }

    /** Expired sessions sit at the head of the disconnect order (one expiry for all): a few are removed per call. */
    void removeExpired(long now) {
        for (int i = 0; i < EXPIRE_PER_OPEN; i++) {
            Map.Entry<String, MemorySession> oldest;
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

    /** Sessions deleted to stay within {@code session.max-sessions}. */
    long evictedCount() {
        return evicted.get();
    }

    private Map.Entry<String, MemorySession> pollOldest() {
        synchronized (disconnectOrder) {
            var it = disconnectOrder.entrySet().iterator();
            if (!it.hasNext()) {
                return null;
            }
            Map.Entry<String, MemorySession> e = it.next();
            it.remove();
            return Map.entry(e.getKey(), e.getValue());
        }
    }

    /**
     * Deletes the session of {@code clientId} if it is still {@code expected} and its device is disconnected (and, with
     * {@code now} below {@code Long.MAX_VALUE}, expired); decided in the map bin's lock, so a concurrent open wins.
     */
    private boolean removeIfDisconnected(String clientId, MemorySession expected, long now) {
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
}
