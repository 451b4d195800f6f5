package io.mqttgw.core.bootstrap;

import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a graceful shutdown for what the node owes others: the uplink sink's records, the route store's
 * queued writes and deletes, then the session store (after the sessions closed, so their expiries and last removals
 * are written). Each waits until the shutdown deadline, at least a second; a flush that does not finish is logged and
 * the shutdown goes on.
 *
 * <p>Stateless; runs on the thread that stops the node, never on an event loop (it waits).
 */
final class ProviderFlush {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderFlush.class);

    private ProviderFlush() {
    }

    /** Closes each store that exists (a failed start may have made only some), waiting until {@code deadline}. */
    static void closeAll(long deadline, UplinkSink sink, RouteStore routes, SessionStore sessions) {
        try {
            if (sink != null) {
                sink.close().toCompletableFuture().get(Math.max(deadline - System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            }
            if (routes != null) {
                routes.close().toCompletableFuture().get(Math.max(deadline - System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            }
            if (sessions != null) {
                sessions.close().toCompletableFuture().get(Math.max(deadline - System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("flushing the sink and route store at shutdown did not finish: {}", e.toString());
        }
    }
}
