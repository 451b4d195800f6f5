package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Closes a session that sent nothing for one and a half keepalive periods (MQTT-3.1.2-24). Placed after the
 * decoder so only whole packets count. While the gateway itself has paused reading the connection (its sink is
 * slow), the device's packets wait unread, so silence is not the device's fault and the check is skipped until
 * reading resumes. One instance per session; event loop only.
 */
public final class KeepAliveHandler extends IdleStateHandler {

    public KeepAliveHandler(int keepAliveSeconds) {
        super(keepAliveSeconds * 1500L, 0, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        if (ctx.channel().config().isAutoRead()) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.KEEPALIVE_TIMEOUT);
        }
    }
}
