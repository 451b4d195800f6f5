package io.mqttgw.routing.session;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RScript;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a session open may wait for Redis. It may while Redis answers, and while it has been away for less than
 * {@code session.open-timeout} (a failover or restart may end within it). Past that, Redis is down or hung, not about
 * to answer, and an open would only hold its device's CONNECT for the whole timeout before serving it as a new session
 * anyway: in a reconnect wave with Redis down that capped a node at ~110 CONNECTs a second (each handshake slot held
 * 3 s). Such an open is not sent; the device is served as a new session at once (its stored session left as it was,
 * found again at a later CONNECT), and counted. Meanwhile one probe at a time (a script that only answers) asks Redis
 * every {@value #PROBE_MILLIS} ms; its first answer, or any other call's, lets opens wait again.
 *
 * <p>Threading: called on event loops; never blocks. Probes run on the Redis client's threads and
 * {@link CompletableFuture#delayedExecutor}. Thread-safe.
 */
final class SessionOpenGate {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    static final long PROBE_MILLIS = 500;
    private static final String PROBE = "return 1";

    private final SessionCalls calls;
    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicLong skipped = new AtomicLong();
    /** {@link #skipped} when the current probing began, for the line that reports its end. */
    private volatile long skippedBefore;

    SessionOpenGate(SessionCalls calls) {
        this.calls = calls;
    }

    /**
     * Whether an open may be sent and wait up to {@code patienceNanos}; if not, it is counted and a probe of Redis
     * through {@code probeKey} (the device's session key: in Redis Cluster, a key of the slot it would have used)
     * runs unless one already does.
     */
    boolean admits(long patienceNanos, String probeKey) {
        long unanswered = calls.unansweredNanos();
        if (patienceNanos <= 0 || unanswered < patienceNanos || calls.closing()) {
            return true;
        }
        skipped.incrementAndGet();
        if (probing.compareAndSet(false, true)) {
            skippedBefore = skipped.get() - 1;
            LOG.warn("session store: Redis has answered no call for {} ms (session.open-timeout {} ms); CONNECTs "
                    + "are served as new sessions at once until it answers again", unanswered / 1_000_000,
                    patienceNanos / 1_000_000);
            probe(probeKey);
        }
        return false;
    }

    /** Session opens not sent because Redis had answered nothing for a whole {@code session.open-timeout}. */
    long skippedCount() {
        return skipped.get();
    }

    private void probe(String key) {
        if (calls.closing() || calls.unansweredNanos() == 0) {
            probing.set(false);
            if (!calls.closing()) {
                LOG.info("session store: Redis answers again; CONNECTs wait for their stored sessions again ({} "
                        + "served as new sessions meanwhile)", skipped.get() - skippedBefore);
            }
            return;
        }
        calls.<Long>eval(key, PROBE, RScript.ReturnType.LONG, List.of(key)).whenComplete((ok, error) ->
                CompletableFuture.delayedExecutor(error == null ? 0 : PROBE_MILLIS, TimeUnit.MILLISECONDS)
                        .execute(() -> probe(key)));
    }
}
