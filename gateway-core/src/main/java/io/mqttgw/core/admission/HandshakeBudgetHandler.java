package io.mqttgw.core.admission;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.tls.HandshakeKind;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * Gives an admitted TLS connection's handshake slot back when its handshake ends or it closes, and on success tells
 * {@link AdmissionControl} which {@link HandshakeKind} it was, so the part of the connection's full-handshake charge
 * that a known device or a resumed session did not cost goes back to the connection rate. An admitted handshake
 * is never paused: overload holds new connections at the {@link AdmissionGate} instead, so no handshake runs into
 * its timeout while the node waits. Stateless per channel (the slot is a flag in the {@link ConnectionContext}),
 * shared; event loop only.
 */
@Sharable
public final class HandshakeBudgetHandler extends ChannelInboundHandlerAdapter {
    private final AdmissionControl control;

    public HandshakeBudgetHandler(AdmissionControl control) {
        this.control = control;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (done.isSuccess() && ConnectionContext.of(ctx.channel()).holdsHandshakeSlot()) {
                // before the TLS handshake handler, which takes the verifier's note off the session
                control.handshakeCompleted(HandshakeKind.of(ctx.pipeline().get(SslHandler.class).engine()));
            }
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
        ConnectionContext c = ConnectionContext.of(ctx.channel());
        if (c.holdsHandshakeSlot()) {
            c.holdHandshakeSlot(false);
            control.handshakeEnded();
        }
    }
}
