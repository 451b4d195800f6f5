package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.netty.channel.Channel;
import java.util.concurrent.CompletionStage;

/**
 * The admission and takeover step of CONNECT: opens the session on the connection and registers it, one atomic
 * decision per client id. A connection never displaces one whose identity was proven the other way (certificate or
 * not), nor the reverse; of two CONNECTs racing on two event loops the newer epoch wins, whichever registers first.
 * The route write and the session open start inside that decision, so the stores see the connections of one client id
 * in epoch order too: a loser never writes after the winner, and its fenced delete and session expiry (by epoch)
 * never touch the winner's. The older channel it displaces is closed on its own event loop. Runs on the newcomer's
 * event loop; the registry's callbacks run under its lock on the same thread.
 */
final class SessionAdmission {
    /** Registry refusal: a CONNECT with a newer epoch for the same client id holds the registry. */
    private static final String SUPERSEDED = "superseded";

    private final SessionServices services;
    private final RouteWrite routes;

    SessionAdmission(SessionServices services, RouteWrite routes) {
        this.services = services;
        this.routes = routes;
    }

    /** How the registration went. */
    enum Outcome {
        ADMITTED,
        /** A newer CONNECT of this client id already holds it: this one is taken over before it began. */
        SUPERSEDED,
        /** The holder proved its identity the other way. */
        PROOF_CONFLICT
    }

    /**
     * The outcome with, once admitted, the writes it started.
     *
     * @param routed the route write (its failure a failed stage)
     * @param stored the session store's answer to the open
     */
    record Admission(Outcome outcome, long epoch, CompletionStage<Void> routed,
                     CompletionStage<StoredSession> stored) {
    }

    /** The writes started inside the registry's decision, kept for the steps that wait for them. */
    private final class Writes implements Runnable {
        private final ConnectionContext context;
        private final ConnectRequest request;
        private final Route route;
        private CompletionStage<Void> routed;
        private CompletionStage<StoredSession> stored;

        Writes(ConnectionContext context, ConnectRequest request, Route route) {
            this.context = context;
            this.request = request;
            this.route = route;
        }

        @Override
        public void run() {
            routed = routes.start(route);
            stored = SessionStoreCalls.call(services.metrics(), "open", () -> services.sessions().open(
                    context.sessionKey(), request.cleanStart(), request.expiryMillis(), route.epoch()));
        }
    }

    /** Opens the session of {@code channel} for {@code request} and registers it; undone when refused. */
    Admission admit(Channel channel, ConnectRequest request, TopicAcl acl) {
        long epoch = services.epochs().incrementAndGet();
        ConnectionContext context = ConnectionContext.of(channel);
        IdentityProof proof = context.proof();
        Route route = new Route(request.clientId(), services.config().nodeId(), epoch, System.currentTimeMillis(),
                String.valueOf(context.remoteAddress()), proof);
        context.openSession(request.clientId(), route, request.will(), acl, request.persistent());
        context.mqtt5(request.mqtt5Session());
        Writes writes = new Writes(context, request, route);
        ChannelRegistry.Registration registration = services.registry().register(request.clientId(), channel,
                (holder, newcomer) -> {
                    ConnectionContext held = ConnectionContext.of(holder);
                    if (held.proof() != proof) {
                        return GatewayMetrics.PROOF_CONFLICT;
                    }
                    Route heldRoute = held.route();
                    return heldRoute != null && heldRoute.epoch() > epoch ? SUPERSEDED : null;
                }, writes);
        if (!registration.registered()) {
            context.abandonSession();
            return new Admission(SUPERSEDED.equals(registration.refusal()) ? Outcome.SUPERSEDED
                    : Outcome.PROOF_CONFLICT, epoch, null, null);
        }
        // a will waiting for its delay: the session resumes (not sent), or a clean start ends it (sent now)
        if (request.cleanStart()) {
            services.wills().publishNow(context.sessionKey());
        } else {
            services.wills().cancel(context.sessionKey());
        }
        Channel older = registration.replaced();
        if (older != null) {
            services.metrics().takeover();
            boolean cleanStart = request.cleanStart();
            older.eventLoop().execute(() -> {
                if (cleanStart) {
                    // MQTT-3.1.2-6 / 5.0 clean start: the old session is discarded, in flight or not
                    ConnectionContext.of(older).discardSession();
                }
                DeviceDisconnector.close(older, DisconnectReason.TAKEOVER);
            });
        }
        return new Admission(Outcome.ADMITTED, epoch, writes.routed, writes.stored);
    }
}
