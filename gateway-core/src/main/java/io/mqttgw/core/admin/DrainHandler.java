package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
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

/**
 * {@code POST /drain[?exit=false]}: the node leaves as on SIGTERM ({@code /health/ready} 503, devices still accepted
 * for {@code shutdown.ready-grace}, then closed at {@code shutdown.drain-rate}) and exits once drained, or with
 * {@code exit=false} stays up, not ready, until it is stopped. Answers 202 at once with what the drain will do; a
 * second call while draining answers the same (the first call's {@code exit} holds). The drain runs on a thread of
 * its own, never the admin thread. Stateless, shared; runs on the admin thread.
 */
@ChannelHandler.Sharable
final class DrainHandler extends ChannelInboundHandlerAdapter {
    static final String DRAIN = "/drain";

    private final OperatorApi api;
    private final AdminMetrics metrics;
    private final EventLog events;

    DrainHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        this.api = api;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request) || !request.decoderResult().isSuccess()
                || !DRAIN.equals(new QueryStringDecoder(request.uri()).rawPath())) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String operator = ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null);
        Object remote = ctx.channel().remoteAddress();
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String what = request.method() + " " + DRAIN + (query.rawQuery().isEmpty() ? "" : "?" + query.rawQuery());
        boolean post = HttpMethod.POST.equals(request.method());
        ReferenceCountUtil.release(msg);
        String refusal = !post ? DRAIN + " takes POST" : api.drain() == null ? "drain is not available here"
                : badQuery(query.parameters());
        if (refusal != null) {
            HttpResponseStatus status = !post ? HttpResponseStatus.METHOD_NOT_ALLOWED
                    : api.drain() == null ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.BAD_REQUEST;
            metrics.count("drain", !post ? "method_not_allowed" : api.drain() == null ? "not_found" : "invalid");
            events.operation(operator, remote, what, "refused: " + refusal);
            AdminResponses.respond(ctx, keepAlive, OperatorJson.error(status, refusal, null));
            return;
        }
        boolean exit = !"false".equals(first(query.parameters(), "exit"));
        OperatorApi.DrainReport report = api.drain().start(operator, exit);
        metrics.count("drain", "ok");
        events.operation(operator, remote, what, report.alreadyDraining() ? "already draining" : "draining");
        AdminResponses.respond(ctx, keepAlive, OperatorJson.response(HttpResponseStatus.ACCEPTED, g -> {
            g.writeStartObject();
            g.writeStringField("state", report.alreadyDraining() ? "already_draining" : "draining");
            g.writeBooleanField("exit", report.exitWhenDrained());
            g.writeNumberField("devices", report.devices());
            g.writeNumberField("readyGraceMillis", report.readyGraceMillis());
            g.writeNumberField("drainRate", report.drainRatePerSecond());
            if (report.serverReference() != null) {
                g.writeStringField("serverReference", report.serverReference());
            }
            g.writeEndObject();
        }));
    }

    private static String badQuery(Map<String, List<String>> parameters) {
        for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
            if (!"exit".equals(p.getKey())) {
                return "unknown parameter " + p.getKey() + "; " + DRAIN + " takes exit=true|false";
            }
            if (p.getValue().size() != 1 || !List.of("true", "false").contains(p.getValue().get(0))) {
                return "exit takes true or false";
            }
        }
        return null;
    }

    private static String first(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
