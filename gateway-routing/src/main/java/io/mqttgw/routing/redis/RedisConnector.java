package io.mqttgw.routing.redis;

import io.mqttgw.core.retry.FullJitterBackoff;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a lazily initialised Redisson client connect on a thread of its own. Such a client connects on the thread of
 * its first call and makes that thread wait for the connect timeout when Redis is unreachable, again on every call
 * until one succeeds: on an event loop that stalls every connection of the loop. So until Redis has answered once,
 * the client's users do not call it (they check {@link #connected()} and fail at once), and this thread sends a
 * probe, retrying with full-jitter backoff. Once connected the thread ends; Redisson then reconnects by itself
 * without blocking its callers. Thread-safe; the flag is read by event loops.
 */
public final class RedisConnector {
    private static final Logger LOG = LoggerFactory.getLogger(RedisConnector.class);

    private final RedissonClient client;
    private final String what;
    private final String probeKey;
    private final FullJitterBackoff backoff;
    private final long answerTimeoutMillis;
    private volatile boolean connected;
    private volatile boolean closed;
    private volatile String lastError = "not tried yet";
    private volatile Thread thread;

    private RedisConnector(RedissonClient client, String what, String probeKey, FullJitterBackoff backoff,
                           long answerTimeoutMillis, boolean connected) {
        this.client = client;
        this.what = what;
        this.probeKey = probeKey;
        this.backoff = backoff;
        this.answerTimeoutMillis = answerTimeoutMillis;
        this.connected = connected;
    }

    /** For a client that is connected already (created without lazy initialisation, or used before). */
    public static RedisConnector connected(RedissonClient client) {
        return new RedisConnector(client, "redis", "", null, 0, true);
    }

    /**
     * Starts the connecting thread ({@code redis-connect-<what>}) for a client created with lazy initialisation.
     *
     * @param what names the client's user in the thread name and the log
     */
    public static RedisConnector start(RedissonClient client, String what, RedisRouteSettings settings) {
        RedisConnector c = new RedisConnector(client, what, settings.keyPrefix() + ":connect-probe",
                new FullJitterBackoff(settings.retryMinDelay(), settings.retryMaxDelay()),
                settings.connectTimeout().plus(settings.timeout()).toMillis(), false);
        Thread t = new Thread(c::run, "redis-connect-" + what);
        t.setDaemon(true);
        c.thread = t;
        t.start();
        return c;
    }

    /** Whether Redis has answered once, so that calls no longer connect on the caller's thread. */
    public boolean connected() {
        return connected;
    }

    /** The last connection failure, for health details. */
    public String lastError() {
        return lastError;
    }

    /** Stops trying (the client is being shut down). */
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void run() {
        long startedNanos = System.nanoTime();
        int attempt = 0;
        while (!closed) {
            try {
                // the first call connects, here and not on an event loop; any key answers
                client.getBucket(probeKey, StringCodec.INSTANCE).isExistsAsync()
                        .toCompletableFuture().get(answerTimeoutMillis, TimeUnit.MILLISECONDS);
                connected = true;
                if (attempt > 0) {
                    LOG.info("Redis ({}) answers after {} s; calls go to Redis from now on", what,
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos));
                }
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                        ? e.getCause() : e;
                lastError = cause.getClass().getSimpleName()
                        + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
                attempt++;
                if (attempt == 1) {
                    LOG.warn("Redis ({}) does not answer ({}); its calls fail at once until it does, retrying "
                            + "with backoff", what, lastError);
                } else {
                    LOG.debug("Redis ({}) still does not answer (attempt {}): {}", what, attempt, lastError);
                }
                LockSupport.parkNanos(this, backoff.delayNanos(attempt));
            }
        }
    }
}
