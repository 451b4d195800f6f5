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

/**
 * {@code POST /config/reload}: re-reads the config file and applies the keys that may change at runtime, as
 * {@code SIGHUP} does; answers with what was applied, which changed keys need a restart, or (422) why the file was
 * refused. The reload itself runs off the admin thread; the answer is written when it completes. Stateless, shared;
 * runs on the admin thread.
 */
@ChannelHandler.Sharable
final class ConfigReloadHandler extends ChannelInboundHandlerAdapter {
    static final String RELOAD = "/config/reload";

    private final OperatorApi api;
    private final AdminMetrics metrics;
    private final EventLog events;

    ConfigReloadHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        this.api = api;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request) || !request.decoderResult().isSuccess()
                || !RELOAD.equals(new QueryStringDecoder(request.uri()).rawPath())) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String operator = ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null);
        Object remote = ctx.channel().remoteAddress();
        String what = request.method() + " " + RELOAD;
        boolean post = HttpMethod.POST.equals(request.method());
        ReferenceCountUtil.release(msg);
        if (!post || api.reload() == null) {
            String reason = !post ? RELOAD + " takes POST" : "the gateway was started without a config file";
            metrics.count("reload", post ? "not_found" : "method_not_allowed");
            events.operation(operator, remote, what, "refused: " + reason);
            AdminResponses.respond(ctx, keepAlive, OperatorJson.error(
                    post ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.METHOD_NOT_ALLOWED, reason, null));
            return;
        }
        api.reload().apply(operator).whenComplete((report, error) -> {
            if (error != null) {
                metrics.count("reload", "failed");
                events.operation(operator, remote, what, "failed: " + error);
                AdminResponses.respond(ctx, keepAlive, OperatorJson.error(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                        "reload failed: " + error, null));
                return;
            }
            boolean refused = report.error() != null;
            metrics.count("reload", refused ? "invalid" : "ok");
            events.operation(operator, remote, what, report.outcome());
            AdminResponses.respond(ctx, keepAlive, OperatorJson.response(
                    refused ? HttpResponseStatus.UNPROCESSABLE_ENTITY : HttpResponseStatus.OK, g -> {
                        g.writeStartObject();
                        g.writeStringField("outcome", report.outcome());
                        if (refused) {
                            g.writeStringField("error", report.error());
                        }
                        strings(g, "applied", report.applied());
                        strings(g, "restartRequired", report.restartRequired());
                        g.writeEndObject();
                    }));
        });
    }

    private static void strings(com.fasterxml.jackson.core.JsonGenerator g, String name, List<String> values)
            throws java.io.IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }
}
