package io.mqttgw.core.admission;

import io.mqttgw.core.protocol.ConnectionContext;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives an admitted TLS connection's handshake slot back when its handshake ends or it closes, and knows the
 * connections still in their handshake, so an overload can pause reading them (their crypto waits) and resume it on
 * recovery. Stateless per channel (the slot is a flag in the {@link ConnectionContext}), shared; event loop only,
 * except {@link #pauseHandshakes}, which hops to each channel's loop.
 */
@Sharable
public final class HandshakeBudgetHandler extends ChannelInboundHandlerAdapter {
    private final AdmissionControl control;
    private final Set<Channel> inHandshake = ConcurrentHashMap.newKeySet();

    public HandshakeBudgetHandler(AdmissionControl control) {
        this.control = control;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        inHandshake.add(ctx.channel());
        if (control.pauseHandshakes()) {
            ctx.channel().config().setAutoRead(false);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent) {
            release(ctx);
            ctx.pipeline().remove(this);
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release(ctx);
        ctx.fireChannelInactive();
    }

    private void release(ChannelHandlerContext ctx) {
        inHandshake.remove(ctx.channel());
        ConnectionContext c = ConnectionContext.of(ctx.channel());
        if (c.holdsHandshakeSlot()) {
            c.holdHandshakeSlot(false);
            control.handshakeEnded();
        }
    }

    /** Pauses (or resumes) reading of every connection still in its TLS handshake. Callable from any thread. */
    public void pauseHandshakes(boolean pause) {
        for (Channel ch : inHandshake) {
            ch.eventLoop().execute(() -> {
                if (inHandshake.contains(ch)) {
                    ch.config().setAutoRead(!pause);
                }
            });
        }
    }
}
