package io.mqttgw.routing.session;

import io.mqttgw.routing.redis.RedisConnector;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of the session store: waits until the calls in flight completed (also those chained later, such as a
 * session's eviction) and every owed expiry is written (retried while Redis fails over), at most the close timeout,
 * then stops the client.
 *
 * <p>Threading: runs once, on a daemon thread of its own ({@code redis-session-close}), never on a Redis client
 * thread (the client cannot stop itself) nor on an event loop (it polls).
 */
final class SessionStoreClose {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);

    private SessionStoreClose() {
    }

    /** Starts the closing thread; the answer completes when the client is stopped (or was not ours to stop). */
    static CompletableFuture<Void> start(SessionCalls calls, SessionExpiries expiries, RedisConnector connector,
                                         RedissonClient client, boolean ownsClient, Duration closeTimeout) {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        Thread t = new Thread(() -> {
            try {
                long nextRetry = System.nanoTime();
                // idle twice in a row: a chained call starts only as the one before it completes
                int idle = 0;
                while (System.nanoTime() - deadline < 0 && idle < 2) {
                    idle = calls.unfinished() == 0 && expiries.owed() == 0 ? idle + 1 : 0;
                    if (expiries.owed() > 0 && calls.unfinished() == 0 && System.nanoTime() - nextRetry >= 0) {
                        expiries.retryOwed(true);
                        nextRetry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
                calls.markClosing();
                if (expiries.owed() > 0 || calls.unfinished() > 0) {
                    LOG.warn("session store closed after {} s with {} calls unanswered and {} persistent sessions "
                            + "without their expiry (they stay in Redis until their devices connect again)",
                            closeTimeout.toSeconds(), calls.unfinished(), expiries.owed());
                }
                connector.close();
                if (ownsClient) {
                    client.shutdown(0, 2, TimeUnit.SECONDS);
                }
            } finally {
                closed.complete(null);
            }
        }, "redis-session-close");
        t.setDaemon(true);
        t.start();
        return closed;
    }
}
