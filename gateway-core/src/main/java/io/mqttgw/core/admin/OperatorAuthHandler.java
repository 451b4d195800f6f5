package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

/**
 * Authenticates each operations request from its head, before its body is buffered: an accepted request goes on
 * with the operator's name in {@link #OPERATOR}; a refused one gets 401 with {@code WWW-Authenticate: Bearer} and a
 * JSON reason, is counted and logged, its body is dropped and the connection closed. One instance per connection
 * (it remembers whether it is dropping a refused body); runs on the admin thread.
 */
final class OperatorAuthHandler extends ChannelInboundHandlerAdapter {
    /** The accepted operator of the request being read; set before the request goes on. */
    static final AttributeKey<String> OPERATOR = AttributeKey.valueOf("mqttgw.admin.operator");

    private final OperatorCredentials credentials;
    private final AdminMetrics metrics;
    private final EventLog events;
    private boolean dropping;

    OperatorAuthHandler(OperatorCredentials credentials, AdminMetrics metrics, EventLog events) {
        this.credentials = credentials;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            OperatorCredentials.Verdict verdict = credentials.authenticate(request,
                    ssl == null ? null : ssl.engine().getSession());
            if (verdict.accepted()) {
                dropping = false;
                ctx.channel().attr(OPERATOR).set(verdict.operator());
                ctx.fireChannelRead(msg);
                return;
            }
            String path = new QueryStringDecoder(request.uri()).path();
            dropping = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            refuse(ctx, path, request.method().name(), verdict.refusal());
        } else if (dropping && msg instanceof HttpContent) {
            dropping = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private void refuse(ChannelHandlerContext ctx, String path, String method, String reason) {
        metrics.count(AdminMetrics.endpoint(path), "unauthorized");
        events.operationRefused(ctx.channel().remoteAddress(), method + " " + path, reason);
        FullHttpResponse response = AdminResponses.error(HttpResponseStatus.UNAUTHORIZED, reason);
        if (credentials.usesTokens()) {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, reason.startsWith("invalid")
                    ? "Bearer realm=\"mqttgw-operations\", error=\"invalid_token\""
                    : "Bearer realm=\"mqttgw-operations\"");
        }
        // closing spares reading (and dropping) whatever else a refused caller sends
        AdminResponses.respond(ctx, false, response);
    }
}
