package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.spi.RouteCheck;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * {@code POST /routes/verify[?repair=true]}: compares the route table with this node's live sessions
 * ({@link io.mqttgw.core.spi.RouteStore#verify}) and answers what differs. The check runs on the route store's own
 * thread; the answer is written when it completes, never blocking the admin thread. Stateless, shared.
 */
@ChannelHandler.Sharable
final class RouteVerifyHandler extends ChannelInboundHandlerAdapter {
    static final String VERIFY = "/routes/verify";

    private final OperatorApi api;
    private final AdminMetrics metrics;
    private final EventLog events;

    RouteVerifyHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        this.api = api;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request) || !request.decoderResult().isSuccess()
                || !VERIFY.equals(new QueryStringDecoder(request.uri()).rawPath())) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String operator = ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null);
        Object remote = ctx.channel().remoteAddress();
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String what = request.method() + " " + VERIFY + (query.rawQuery().isEmpty() ? "" : "?" + query.rawQuery());
        boolean post = HttpMethod.POST.equals(request.method());
        ReferenceCountUtil.release(msg);
        String refusal = !post ? VERIFY + " takes POST" : badQuery(query.parameters());
        if (refusal != null) {
            metrics.count("routes_verify", !post ? "method_not_allowed" : "invalid");
            events.operation(operator, remote, what, "refused: " + refusal);
            AdminResponses.respond(ctx, keepAlive, OperatorJson.error(
                    !post ? HttpResponseStatus.METHOD_NOT_ALLOWED : HttpResponseStatus.BAD_REQUEST, refusal, null));
            return;
        }
        boolean repair = "true".equals(first(query.parameters(), "repair"));
        api.routes().verify(repair).whenComplete((check, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                HttpResponseStatus status = cause instanceof UnsupportedOperationException
                        ? HttpResponseStatus.NOT_IMPLEMENTED : cause instanceof RouteCheck.AlreadyRunning
                        ? HttpResponseStatus.CONFLICT : HttpResponseStatus.SERVICE_UNAVAILABLE;
                metrics.count("routes_verify", status == HttpResponseStatus.NOT_IMPLEMENTED ? "not_found"
                        : status == HttpResponseStatus.CONFLICT ? "conflict" : "failed");
                events.operation(operator, remote, what, "failed: " + cause);
                AdminResponses.respond(ctx, keepAlive, OperatorJson.error(status, String.valueOf(cause.getMessage()),
                        null));
                return;
            }
            metrics.count("routes_verify", "ok");
            events.operation(operator, remote, what, check.found() + " differences"
                    + (repair ? ", " + check.repaired() + " repaired" : ""));
            AdminResponses.respond(ctx, keepAlive, OperatorJson.response(HttpResponseStatus.OK, g -> {
                g.writeStartObject();
                g.writeStringField("node", check.nodeId());
                g.writeBooleanField("complete", check.complete());
                g.writeNumberField("live", check.live());
                g.writeNumberField("indexed", check.indexed());
                g.writeNumberField("scanned", check.scanned());
                g.writeNumberField("found", check.found());
                g.writeNumberField("repaired", check.repaired());
                g.writeNumberField("tookMillis", check.tookMillis());
                g.writeArrayFieldStart("differences");
                for (RouteCheck.Difference d : check.differences()) {
                    g.writeStartObject();
                    g.writeStringField("kind", d.kind().name().toLowerCase(java.util.Locale.ROOT));
                    g.writeStringField("clientId", d.clientId());
                    if (d.routeNode() != null) {
                        g.writeStringField("routeNode", d.routeNode());
                        g.writeNumberField("routeEpoch", d.routeEpoch());
                    }
                    if (d.liveEpoch() != 0) {
                        g.writeNumberField("liveEpoch", d.liveEpoch());
                    }
                    if (repair) {
                        g.writeBooleanField("repaired", d.repaired());
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }));
        });
    }

    private static String badQuery(Map<String, List<String>> parameters) {
        for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
            if (!"repair".equals(p.getKey())) {
                return "unknown parameter " + p.getKey() + "; " + VERIFY + " takes repair=true|false";
            }
            if (p.getValue().size() != 1 || !List.of("true", "false").contains(p.getValue().get(0))) {
                return "repair takes true or false";
            }
        }
        return null;
    }

    private static String first(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
