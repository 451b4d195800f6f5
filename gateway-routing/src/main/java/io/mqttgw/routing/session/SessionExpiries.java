package io.mqttgw.routing.session;

import static io.mqttgw.routing.session.SessionCalls.DONE;
import static io.mqttgw.routing.session.SessionCalls.ascii;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RScript;

/**
 * What happens to a session when its device leaves: its expiry is written (owed and written again while Redis does
 * not take it, so no session stays in Redis for ever), and the sessions whose devices left this node are bounded by
 * {@code session.max-sessions}, the one whose device left longest ago deleted first.
 *
 * <p>Threading: {@link #disconnected} is called from any thread (an event loop) and never blocks; the owed expiries
 * are retried on the Redis client's threads after an answer ({@link #retryOwed}), and by the closing thread of the
 * store. Thread-safe.
 */
final class SessionExpiries {
    private final SessionCalls calls;
    private final SessionKeys keys;
    private final long expiryMillis;
    /** Key of the sorted set of sessions whose device left this node; null: no bound. */
    private final String sessionsLeftKey;
    private final byte[] maxSessions;
    private final AtomicLong evicted = new AtomicLong();
    private volatile long sessionsLeft;
    /**
     * Sessions whose expiry could not be written when their device left (Redis failing over, say): without it they
     * would stay in Redis for ever. Client id to {epoch, expiry ms}; written again until Redis takes it (the script is
     * fenced by epoch, so a device that came back meanwhile keeps its live session).
     */
    private final ConcurrentHashMap<String, long[]> expiriesOwed = new ConcurrentHashMap<>();
    private final AtomicLong owedRetryNanos = new AtomicLong(System.nanoTime());

    SessionExpiries(SessionCalls calls, SessionKeys keys, long expiryMillis, String sessionsLeftKey, int maxSessions) {
        this.calls = calls;
        this.keys = keys;
        this.expiryMillis = expiryMillis;
        this.sessionsLeftKey = sessionsLeftKey;
        this.maxSessions = ascii(maxSessions);
    }

    private List<Object> sessionKeys(String clientId) {
        return List.of(keys.session(clientId), keys.pending(clientId), keys.messages(clientId));
    }

    /** Sessions whose expiry is still owed (not written yet). */
    int owed() {
        return expiriesOwed.size();
    }

    /** Sessions deleted to stay within {@code session.max-sessions}. */
    long evictedCount() {
        return evicted.get();
    }

    /** Sessions whose device left this node and that are still tracked for the bound, as Redis last answered. */
    long sessionsLeft() {
        return sessionsLeft;
    }

    /** Writes the owed expiries again, at most once a second unless {@code now}; answers when they were sent. */
    CompletableFuture<Void> retryOwed(boolean now) {
        if (expiriesOwed.isEmpty()) {
            return DONE;
        }
        long last = owedRetryNanos.get();
        long t = System.nanoTime();
        if (!now && (t - last < TimeUnit.SECONDS.toNanos(1) || !owedRetryNanos.compareAndSet(last, t))) {
            return DONE;
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (Map.Entry<String, long[]> e : expiriesOwed.entrySet()) {
            long[] owed = e.getValue();
            sent.add(writeExpiry(e.getKey(), owed[0], owed[1]).toCompletableFuture()
                    .handle((started, error) -> null));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    /** The DISCONNECTED script; owes the expiry when Redis did not take it, forgets it once Redis did. */
    private CompletionStage<Long> writeExpiry(String clientId, long epoch, long expiry) {
        return calls.inOrder(clientId, () -> calls.<Long>eval(keys.session(clientId), SessionScripts.DISCONNECTED,
                RScript.ReturnType.LONG, sessionKeys(clientId), ascii(epoch), ascii(expiry)))
                .whenComplete((started, error) -> {
                    if (error == null) {
                        expiriesOwed.computeIfPresent(clientId, (k, owed) -> owed[0] == epoch ? null : owed);
                    } else {
                        expiriesOwed.merge(clientId, new long[] {epoch, expiry},
                                (old, mine) -> old[0] > epoch ? old : mine);
                    }
                });
    }

    CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        // the device's interval (MQTT 5.0) capped at session.expiry; 0 deletes the session now
        long expiry = Math.max(0, Math.min(expiryMillis, this.expiryMillis));
        return writeExpiry(clientId, epoch, expiry)
                .whenComplete((started, error) -> {
                    if (error != null) {
                        calls.logFailure("writing the expiry of the session", clientId, error);
                    }
                })
                .thenCompose(started -> started != null && started == 1 && sessionsLeftKey != null && expiry > 0
                        ? trackDisconnected(clientId, epoch) : DONE);
    }

    /**
     * Records that the device left this node and deletes, past {@code session.max-sessions}, the sessions whose
     * devices left longest ago (each only if it is still away: {@link SessionScripts#EVICT}). Two scripts on two
     * keys, not one, so that each touches one Redis Cluster slot; a session that comes back in between is kept.
     */
    private CompletionStage<Void> trackDisconnected(String clientId, long epoch) {
        long now = System.currentTimeMillis();
        byte[] member = (epoch + ":" + clientId).getBytes(StandardCharsets.UTF_8);
        return calls.<List<Object>>eval(sessionsLeftKey, SessionScripts.TRACK_DISCONNECTED,
                RScript.ReturnType.LIST, List.of(sessionsLeftKey), ascii(now), member, maxSessions,
                ascii(now - expiryMillis)).thenCompose(r -> {
                    if (r == null || r.isEmpty()) {
                        return DONE;
                    }
                    if (r.get(0) instanceof Long n) {
                        sessionsLeft = n;
                    }
                    List<CompletableFuture<Void>> evictions = new ArrayList<>();
                    for (int i = 1; i < r.size(); i += 2) {
                        String popped = r.get(i) instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                                : String.valueOf(r.get(i));
                        int colon = popped.indexOf(':');
                        if (colon > 0) {
                            evictions.add(evict(popped.substring(colon + 1),
                                    popped.substring(0, colon)).toCompletableFuture());
                        }
                    }
                    return CompletableFuture.allOf(evictions.toArray(CompletableFuture[]::new));
                });
    }

    private CompletionStage<Void> evict(String clientId, String epoch) {
        return calls.inOrder(clientId, () -> calls.<Long>eval(keys.session(clientId), SessionScripts.EVICT,
                RScript.ReturnType.LONG, sessionKeys(clientId), (Object) epoch.getBytes(StandardCharsets.US_ASCII)))
                .thenApply(deleted -> {
                    if (deleted != null && deleted == 1) {
                        evicted.incrementAndGet();
                    }
                    return null;
                });
    }
}
