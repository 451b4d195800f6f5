package io.mqttgw.core.admission;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * On a listener's server channel, before Netty hands an accepted socket to an event loop: asks
 * {@link AdmissionControl} whether the node takes one more connection now. A turned-away socket never gets a
 * pipeline, a TLS engine or a timer; it is closed after a random delay (up to {@code admission.reject-delay}) so
 * devices that retry do not come back in lockstep. Runs on the accept loop; shared by the listeners.
 */
@Sharable
public final class AdmissionGate extends ChannelInboundHandlerAdapter {
    private final AdmissionControl control;
    private final boolean tls;
    private final long maxDelayMillis;

    public AdmissionGate(AdmissionControl control, boolean tls, long maxDelayMillis) {
        this.control = control;
        this.tls = tls;
        this.maxDelayMillis = maxDelayMillis;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Channel child) || control.admit(tls) == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        long delay = maxDelayMillis <= 0 ? 0 : ThreadLocalRandom.current().nextLong(maxDelayMillis + 1);
        // the child was never registered with an event loop: closing it only closes its socket
        ctx.executor().schedule(() -> child.unsafe().closeForcibly(), delay, TimeUnit.MILLISECONDS);
    }
}
