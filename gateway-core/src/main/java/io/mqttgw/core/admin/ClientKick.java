package io.mqttgw.core.admin;

import io.mqttgw.core.spi.OperationForwarding;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * {@code DELETE /clients/{id}}: closes a device with reason {@code administrative} on the node that holds it. Held
 * here, the close runs on the device's event loop; held elsewhere, it is forwarded there where the route store can
 * carry it, else refused with 409 naming that node. Each wait is bounded like the other operator lookups.
 *
 * <p>Stateless; started on the admin thread, continued on whichever thread completes the lookup; never waits.
 */
final class ClientKick {
    private final OperatorApi api;

    ClientKick(OperatorApi api) {
        this.api = api;
    }

    void kick(OperatorCall call, String id, boolean discardSession) {
        Channel channel = api.registry().find(id);
        if (channel == null) {
            BoundedAnswers.route(api, id).whenComplete((route, error) -> {
                if (error == null && route.isPresent() && !route.get().nodeId().equals(api.nodeId())) {
                    if (api.forwarding() != null) {
                        forward(call, id, discardSession, route.get().nodeId());
                    } else {
                        call.refuse(HttpResponseStatus.CONFLICT, "not_found", "client connected to node "
                                + route.get().nodeId() + "; send the request to that node", route.get().nodeId());
                    }
                } else {
                    call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to this node");
                }
            });
            return;
        }
        BoundedAnswers.bounded(AdministrativeDisconnect.kick(channel, discardSession, api.sessions(), api.metrics()))
                .whenComplete((outcome, error) -> {
                    if (error != null) {
                        call.unavailable(error);
                    } else if (!outcome.closed()) {
                        call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to this node");
                    } else {
                        call.done(HttpResponseStatus.OK, "ok",
                                "kicked" + (outcome.sessionDiscarded() ? ", session discarded" : ""),
                                OperatorJson.kicked(id, api.nodeId(), outcome.sessionDiscarded()));
                    }
                });
    }

    /** The kick run by the node that holds the device, answered with what it did there; bounded like a local one. */
    private void forward(OperatorCall asked, String id, boolean discardSession, String holder) {
        long correlationId = api.forwarding().newCorrelationId();
        OperatorCall call = asked.forwarded(holder, correlationId);
        CompletionStage<OperationForwarding.Forwarded<OperationForwarding.Kick>> stage;
        try {
            stage = api.forwarding().kick(holder, correlationId, id, discardSession,
                    Duration.ofSeconds(BoundedAnswers.TIMEOUT_SECONDS));
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((f, error) -> {
            Throwable cause = OperatorCall.causeOf(error);
            if (cause instanceof TimeoutException) {
                call.refuse(HttpResponseStatus.GATEWAY_TIMEOUT, "timeout", "no answer from node " + holder
                        + " within " + BoundedAnswers.TIMEOUT_SECONDS + " s", holder);
            } else if (cause instanceof OperationForwarding.Unreachable) {
                call.refuse(HttpResponseStatus.SERVICE_UNAVAILABLE, "unreachable", cause.getMessage(), holder);
            } else if (cause instanceof OperationForwarding.Busy) {
                call.refuse(HttpResponseStatus.SERVICE_UNAVAILABLE, "busy", cause.getMessage(), holder);
            } else if (cause != null) {
                call.refuse(HttpResponseStatus.SERVICE_UNAVAILABLE, "failed", "cannot forward to node " + holder
                        + ": " + cause, holder);
            } else if (f.outcome() == null || !f.outcome().closed()) {
                call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to node " + holder,
                        holder);
            } else {
                call.done(HttpResponseStatus.OK, "ok", "kicked on node " + f.nodeId()
                                + (f.outcome().sessionDiscarded() ? ", session discarded" : ""),
                        OperatorJson.kicked(id, f.nodeId(), f.outcome().sessionDiscarded()));
            }
        });
    }
}
