package io.mqttgw.core.admin;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The read-only operator requests on clients and sessions: a page of this node's sessions in client-id order, one
 * client (read on its event loop, or from the route table when another node holds it), and one stored persistent
 * session. Arguments arrive checked by {@link ClientOperationsHandler}.
 *
 * <p>Stateless; started on the admin thread, continued on whichever thread completes the lookup; never waits:
 * per-connection state is copied on the device's event loop.
 */
final class ClientQueries {
    private final OperatorApi api;

    ClientQueries(OperatorApi api) {
        this.api = api;
    }

    /** Up to {@code limit} sessions whose id starts with {@code prefix}, after the id {@code after} (or the first). */
    void page(OperatorCall call, String prefix, String after, int limit) {
        ChannelRegistry registry = api.registry();
        ChannelRegistry.Page page = registry.page(prefix, after, limit);
        List<Route> routes = new ArrayList<>(page.ids().size());
        for (String id : page.ids()) {
            Channel channel = registry.find(id);
            ConnectionContext c = channel == null ? null : ConnectionContext.of(channel);
            // the route is set before registration and never changes: safe to read here (see LocalRoutes)
            Route route = c == null ? null : c.route();
            if (route != null) {
                routes.add(route);
            }
        }
        String next = page.next() == null ? null : ClientIdSyntax.encodeCursor(page.next());
        call.done(HttpResponseStatus.OK, "ok", "clients=" + routes.size(),
                OperatorJson.page(api.nodeId(), routes, next));
    }

    void show(OperatorCall call, String id) {
        Channel channel = api.registry().find(id);
        if (channel != null) {
            BoundedAnswers.bounded(ClientDetails.read(channel)).whenComplete((details, error) -> {
                if (error != null) {
                    call.unavailable(error);
                } else if (details == null) {
                    // closed meanwhile: the route table may know a newer connection elsewhere
                    showRemote(call, id);
                } else {
                    call.done(HttpResponseStatus.OK, "ok", "local", OperatorJson.client(details));
                }
            });
        } else {
            showRemote(call, id);
        }
    }

    private void showRemote(OperatorCall call, String id) {
        BoundedAnswers.route(api, id).whenComplete((route, error) -> {
            if (error != null) {
                call.unavailable(error);
            } else if (route.isEmpty() || route.get().nodeId().equals(api.nodeId())) {
                call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "client not connected");
            } else {
                call.done(HttpResponseStatus.OK, "ok", "on node " + route.get().nodeId(),
                        OperatorJson.remoteClient(route.get()));
            }
        });
    }

    void session(OperatorCall call, String id) {
        // a certificate-proven device's session is under its id; one proven without a certificate under a prefix
        BoundedAnswers.session(api, IdentityProof.CERTIFICATE.sessionKey(id)).thenCompose(s -> s.isPresent()
                        ? CompletableFuture.completedFuture(new Found(IdentityProof.CERTIFICATE, s.get()))
                        : BoundedAnswers.session(api, IdentityProof.NO_CERTIFICATE.sessionKey(id)).thenApply(
                                n -> n.map(x -> new Found(IdentityProof.NO_CERTIFICATE, x)).orElse(null)))
                .whenComplete((found, error) -> {
                    Throwable cause = OperatorCall.causeOf(error);
                    if (cause instanceof UnsupportedOperationException) {
                        call.refuse(HttpResponseStatus.NOT_IMPLEMENTED, "failed",
                                "the configured session store cannot describe sessions");
                    } else if (cause != null) {
                        call.unavailable(cause);
                    } else if (found == null) {
                        call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "no persistent session");
                    } else {
                        String proof = found.proof().name().toLowerCase(Locale.ROOT);
                        call.done(HttpResponseStatus.OK, "ok", "session", OperatorJson.session(id, proof,
                                found.summary()));
                    }
                });
    }

    private record Found(IdentityProof proof, SessionStore.SessionSummary summary) {
    }
}
