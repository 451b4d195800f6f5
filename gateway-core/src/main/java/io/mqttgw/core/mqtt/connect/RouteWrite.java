package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteConflictException;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The route step of CONNECT: starts the route write and ends a served session whose write the table refused (another
 * node holds the client id for a connection proven the other way). The write starts on the event loop (inside the
 * registry's decision); its answer arrives on any thread and is handed back to the channel's event loop.
 */
final class RouteWrite {
    private final SessionServices services;

    RouteWrite(SessionServices services) {
        this.services = services;
    }

    /** The route write, its failure as a failed stage rather than an exception thrown under the registry's lock. */
    CompletionStage<Void> start(Route route) {
        try {
            CompletionStage<Void> stage = services.routes().put(route);
            return stage == null ? CompletableFuture.completedFuture(null) : stage;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Whether the route table refused the write because the identity is held by a device proven the other way. */
    static boolean isConflict(Throwable error) {
        Throwable e = error;
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e instanceof RouteConflictException;
    }

    /** A conflict the write of a served (certificate) connection finds later closes that session on its loop. */
    void closeOnLateConflict(CompletionStage<Void> routed, Channel channel, long epoch) {
        routed.whenComplete((ignored, error) -> {
            if (isConflict(error)) {
                channel.eventLoop().execute(() -> closeOnConflict(channel, epoch));
            }
        });
    }

    /**
     * A route write the table refused after the connection was served ends the session of that epoch, without its
     * will. Event loop only.
     */
    void closeOnConflict(Channel channel, long epoch) {
        ConnectionContext c = ConnectionContext.of(channel);
        Route r = c.route();
        if (channel.isActive() && r != null && r.epoch() == epoch && c.sessionOpen()) {
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            c.endForIdentityConflict(channel);
        }
    }
}
