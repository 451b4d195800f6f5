package io.mqttgw.core.bootstrap;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's five providers, chosen by config and found with the service loader: the authenticator, route store,
 * uplink sink, downlink source and session store. Made together, reported together on {@code /health}, and released
 * at shutdown in the order that loses nothing: the uplink sink's records, the route store's queued writes and
 * deletes, then the session store (after the sessions closed, so their expiries and last removals are written), each
 * until the shutdown deadline (at least a second); a flush that does not finish is logged and the shutdown goes on.
 *
 * <p>Made and released by the thread that starts and stops the node, never on an event loop (the release waits);
 * the providers themselves are thread-safe.
 */
final class NodeProviders {
    private static final Logger LOG = LoggerFactory.getLogger(NodeProviders.class);

    private final Authenticator authenticator;
    private final RouteStore routes;
    private final UplinkSink sink;
    private final DownlinkSource downlink;
    private final SessionStore sessions;

    private NodeProviders(Authenticator authenticator, RouteStore routes, UplinkSink sink, DownlinkSource downlink,
                          SessionStore sessions) {
        this.authenticator = authenticator;
        this.routes = routes;
        this.sink = sink;
        this.downlink = downlink;
        this.sessions = sessions;
    }

    /** Makes each; when one fails, those made before it are released (a failed start has no one else to). */
    static NodeProviders create(GatewayConfig config, Providers providers, ProviderContext context) {
        Authenticator authenticator = null;
        RouteStore routes = null;
        UplinkSink sink = null;
        DownlinkSource downlink = null;
        SessionStore sessions = null;
        try {
            authenticator = providers.authenticator(config.auth().provider()).create(context);
            routes = providers.routeStore(config.routesProvider()).create(context);
            sink = providers.uplinkSink(config.uplinkSink()).create(context);
            downlink = providers.downlinkSource(config.downlinkSource()).create(context);
            sessions = providers.sessionStore(config.session().provider()).create(context);
            return new NodeProviders(authenticator, routes, sink, downlink, sessions);
        } catch (RuntimeException | Error e) {
            NodeProviders made = new NodeProviders(authenticator, routes, sink, downlink, sessions);
            made.stopDownlink();
            made.flushAndClose(System.nanoTime() + config.shutdown().timeout().toNanos());
            throw e;
        }
    }

    Authenticator authenticator() {
        return authenticator;
    }

    RouteStore routes() {
        return routes;
    }

    UplinkSink sink() {
        return sink;
    }

    DownlinkSource downlink() {
        return downlink;
    }

    SessionStore sessions() {
        return sessions;
    }

    /** What {@code /health} reports of the providers, in a fixed order, and then {@code tls}. */
    List<HealthCheck> healthChecks(HealthCheck tls) {
        return List.of(new HealthCheck("uplink", sink::health), new HealthCheck("routes", routes::health),
                new HealthCheck("auth", authenticator::health), new HealthCheck("downlink", downlink::health),
                new HealthCheck("sessions", sessions::health), tls);
    }

    /** No more downlink records taken in; first at shutdown, before the wills go out through the sink. */
    void stopDownlink() {
        if (downlink != null) {
            downlink.close();
        }
    }

    /** Flushes and closes the stores, each waiting until {@code deadline}, then closes the authenticator. */
    void flushAndClose(long deadline) {
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
        if (authenticator != null) {
            authenticator.close();
        }
    }
}
