package io.mqttgw.core.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.topic.TopicLimits;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.Route;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operations of an authenticated operator ({@link OperatorAuthHandler} ran before):
 * {@code POST /downlink?client=ID&topic=T&qos=1[&retain=true]} sends the body to one device and answers with the
 * outcome once known (for QoS 1/2 after the device's PUBACK). When another node holds the device (it would only be
 * queued here) the request is forwarded to that node where the route store can carry it, and answered with that
 * node's outcome and id (504 when it does not answer in time, 503 when it is busy), else refused with 409 naming
 * that node; {@code POST /downlink/broadcast?topic=T&qos=1} sends
 * it to every device of this node subscribed to the topic and answers with how many. Both take the MQTT 5.0
 * message expiry and PUBLISH properties. Input is checked by {@link DownlinkRequest} (an unknown parameter is
 * refused by name); each operation, done or refused, is written to the event log with its operator.
 * Stateless, shared by the connections; reads on the admin thread, completions arrive on device event loops (or the
 * route store's thread).
 */
@ChannelHandler.Sharable
final class OperationsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final String DOWNLINK = "/downlink";
    static final String BROADCAST = "/downlink/broadcast";

    /** Bound on the route lookup for a device this node does not hold: a slow route store still gets an answer. */
    private static final long LOOKUP_TIMEOUT_SECONDS = 10;

    private final DownlinkTarget downlink;
    private final AdminMetrics metrics;
    private final EventLog events;
    private final TopicLimits topicLimits;
    /** Which node holds a device this node does not (the route table). */
    private final OperatorApi api;

    OperationsHandler(DownlinkTarget downlink, AdminMetrics metrics, EventLog events, TopicLimits topicLimits,
                      OperatorApi api) {
        this.api = api;
        this.topicLimits = topicLimits;
        this.downlink = downlink;
        this.metrics = metrics;
        this.events = events;
    }

    /** Whether {@code path} names an operation (the read-only listener refuses these when operations are elsewhere). */
    static boolean isOperation(String path) {
        return DOWNLINK.equals(path) || BROADCAST.equals(path) || ClientOperationsHandler.handles(path)
                || ConfigReloadHandler.RELOAD.equals(path) || DrainHandler.DRAIN.equals(path)
                || RouteVerifyHandler.VERIFY.equals(path);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String operator = ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null);
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String path = query.path();
        String endpoint = AdminMetrics.endpoint(path);
        Object remote = ctx.channel().remoteAddress();
        if (!request.decoderResult().isSuccess()) {
            refuse(ctx, false, HttpResponseStatus.BAD_REQUEST, endpoint, "invalid", operator, remote,
                    request.method() + " " + path, "malformed HTTP request");
            return;
        }
        if (!isOperation(path)) {
            refuse(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, endpoint, "not_found", operator, remote,
                    request.method() + " " + path, "no such operation; try " + DOWNLINK + " or " + BROADCAST);
            return;
        }
        if (!HttpMethod.POST.equals(request.method())) {
            refuse(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, endpoint, "method_not_allowed", operator,
                    remote, request.method() + " " + path, "operations take POST");
            return;
        }
        boolean broadcast = BROADCAST.equals(path);
        DownlinkRequest parsed = DownlinkRequest.parse(query, request.content(), broadcast, topicLimits);
        if (parsed.refusal() != null) {
            refuse(ctx, keepAlive, HttpResponseStatus.BAD_REQUEST, endpoint, "invalid", operator, remote,
                    "POST " + path + " " + query.rawQuery(), parsed.refusal());
            return;
        }
        DownlinkMessage m = parsed.message();
        String what = describe(m, broadcast);
        if (broadcast) {
            downlink.broadcastReporting(m).whenComplete((r, e) -> {
                String retained = e == null ? name(r.retained()) : null;
                done(ctx, keepAlive, endpoint, operator, remote, what, e == null ? "handed_to=" + r.handedTo()
                        + (retained == null ? "" : " retained=" + retained) : null, e == null ? g -> {
                            g.writeStartObject();
                            g.writeNumberField("handedTo", r.handedTo());
                            writeRetained(g, retained);
                            g.writeEndObject();
                        } : null);
            });
        } else if (api.registry().find(m.clientId()) == null) {
            // not here: a device online on another node would only be queued (or missed) here, so the operator is
            // sent to the node that holds it, as a kick is
            lookup(m.clientId()).whenComplete((route, error) -> {
                if (error != null) {
                    refuse(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, endpoint, "failed", operator,
                            remote, what, "cannot tell which node holds the client: " + error, null);
                } else if (route.isPresent() && !route.get().nodeId().equals(api.nodeId())) {
                    if (api.forwarding() != null) {
                        forward(ctx, keepAlive, endpoint, operator, remote, what, m, route.get().nodeId());
                    } else {
                        refuse(ctx, keepAlive, HttpResponseStatus.CONFLICT, endpoint, "not_found", operator, remote,
                                what, "client connected to node " + route.get().nodeId()
                                        + "; send the request to that node", route.get().nodeId());
                    }
                } else {
                    deliver(ctx, keepAlive, endpoint, operator, remote, what, m);
                }
            });
        } else {
            deliver(ctx, keepAlive, endpoint, operator, remote, what, m);
        }
    }

    /** A downlink as the audit trail shows it, here and on the node a forwarded one runs on: no payload. */
    static String describe(DownlinkMessage m, boolean broadcast) {
        return (broadcast ? "broadcast" : "downlink client=" + m.clientId()) + " topic=" + m.topic() + " qos="
                + m.qos() + " retain=" + m.retain() + " bytes=" + m.payload().length
                + (m.expiresAtMillis() > 0 ? " expiry" : "") + (m.properties().isEmpty() ? "" : " properties");
    }

    private CompletableFuture<Optional<Route>> lookup(String clientId) {
        CompletionStage<Optional<Route>> stage;
        try {
            stage = api.routes().lookup(clientId);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        // a copy: orTimeout on the store's own future would fail it for its other users too
        return stage.toCompletableFuture().thenApply(r -> r).orTimeout(LOOKUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private void deliver(ChannelHandlerContext ctx, boolean keepAlive, String endpoint, String operator,
                         Object remote, String what, DownlinkMessage m) {
        downlink.deliverReporting(m).whenComplete((r, e) -> {
            String outcome = e == null ? name(r.outcome()) : null;
            String retained = e == null ? name(r.retained()) : null;
            done(ctx, keepAlive, endpoint, operator, remote, what,
                    outcome == null || retained == null ? outcome : outcome + " retained=" + retained,
                    outcome == null ? null : g -> {
                        g.writeStartObject();
                        g.writeStringField("outcome", outcome);
                        writeRetained(g, retained);
                        g.writeEndObject();
                    });
        });
    }

    /**
     * Sends the downlink to the node that holds the device and answers with that node's outcome and id. No answer
     * within the holder's own bound is a 504 naming the holder: the message may or may not have reached the device,
     * and it is not kept here, since the device is online elsewhere.
     */
    private void forward(ChannelHandlerContext ctx, boolean keepAlive, String endpoint, String operator,
                         Object remote, String what, DownlinkMessage m, String holder) {
        long correlationId = api.forwarding().newCorrelationId();
        String forwarded = what + " via node " + holder + " correlation="
                + OperationForwarding.correlation(correlationId);
        CompletionStage<OperationForwarding.Forwarded<DownlinkTarget.Report>> stage;
        try {
            stage = api.forwarding().downlink(holder, correlationId, m, api.downlinkTimeout());
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((f, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TimeoutException) {
                refuse(ctx, keepAlive, HttpResponseStatus.GATEWAY_TIMEOUT, endpoint, "timeout", operator, remote,
                        forwarded, "no answer from node " + holder + " within " + api.downlinkTimeout().toMillis()
                                + " ms; the device may or may not have the message", holder);
            } else if (cause instanceof OperationForwarding.Unreachable) {
                refuse(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, endpoint, "unreachable", operator,
                        remote, forwarded, cause.getMessage(), holder);
            } else if (cause instanceof OperationForwarding.Busy) {
                refuse(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, endpoint, "busy", operator, remote,
                        forwarded, cause.getMessage(), holder);
            } else if (cause != null) {
                refuse(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, endpoint, "failed", operator, remote,
                        forwarded, "cannot forward to node " + holder + ": " + cause, holder);
            } else if (f.outcome() == null) {
                refuse(ctx, keepAlive, HttpResponseStatus.CONFLICT, endpoint, "not_found", operator, remote,
                        forwarded, "client no longer on node " + holder + " when the request came; send it again",
                        holder);
            } else {
                String outcome = name(f.outcome().outcome());
                String retained = name(f.outcome().retained());
                done(ctx, keepAlive, endpoint, operator, remote, forwarded,
                        retained == null ? outcome : outcome + " retained=" + retained, g -> {
                            g.writeStartObject();
                            g.writeStringField("outcome", outcome);
                            writeRetained(g, retained);
                            g.writeStringField("node", f.nodeId());
                            g.writeEndObject();
                        });
            }
        });
    }

    private static String name(Enum<?> value) {
        return value == null ? null : value.name().toLowerCase(Locale.ROOT);
    }

    /**
     * With the retain flag the delivery and the retained copy are separate answers: {@code not_connected} alone would
     * hide that the message was stored and will reach the device when it subscribes.
     */
    private static void writeRetained(JsonGenerator g, String retained)
            throws IOException {
        if (retained != null) {
            g.writeStringField("retained", retained);
        }
    }

    private void done(ChannelHandlerContext ctx, boolean keepAlive, String endpoint, String operator, Object remote,
                      String what, String outcome, AdminResponses.JsonBody body) {
        metrics.count(endpoint, body == null ? "failed" : "ok");
        events.operation(operator, remote, what, body == null ? "failed" : outcome);
        FullHttpResponse response = body == null
                ? AdminResponses.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, endpoint + " failed")
                : AdminResponses.json(HttpResponseStatus.OK, body);
        AdminResponses.respond(ctx, keepAlive, response);
    }

    private void refuse(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String endpoint,
                        String result, String operator, Object remote, String what, String reason) {
        refuse(ctx, keepAlive, status, endpoint, result, operator, remote, what, reason, null);
    }

    /** @param node the node that holds the client, named in the answer (409), or null */
    private void refuse(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String endpoint,
                        String result, String operator, Object remote, String what, String reason, String node) {
        metrics.count(endpoint, result);
        events.operation(operator, remote, what, "refused: " + reason);
        AdminResponses.respond(ctx, keepAlive, node == null ? AdminResponses.error(status, reason)
                : OperatorJson.error(status, reason, node));
    }
}
