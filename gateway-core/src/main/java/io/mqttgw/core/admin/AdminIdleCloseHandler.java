package io.mqttgw.core.admin;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Closes an admin connection that the {@code IdleStateHandler} before it found idle for {@code admin.idle-timeout}
 * (nothing read or written), counted as {@code reason="idle"}. Stateless, shared; admin event loop only.
 */
@ChannelHandler.Sharable
final class AdminIdleCloseHandler extends ChannelInboundHandlerAdapter {
    private final AdminMetrics metrics;

    AdminIdleCloseHandler(AdminMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            metrics.connectionClosed("idle");
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }
}
