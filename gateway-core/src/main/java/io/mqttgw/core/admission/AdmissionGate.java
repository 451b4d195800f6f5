package io.mqttgw.core.admission;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * On a listening socket, before Netty hands an accepted socket to its event loop: asks
 * {@link AdmissionControl} whether the node takes one more connection now. When it does not (rate, handshake
 * budget, busy or overloaded), the gate keeps that one socket aside and stops reading the server channel, so the
 * next devices wait in the kernel's listen backlog, which costs the node nothing; every {@link #RETRY_MILLIS} it asks
 * again, hands the kept socket on and reads the backlog again once there is room. A device is thus delayed, not
 * refused, and never reaches TLS before there is room for its handshake. A socket that still arrives while one is
 * kept (one the server channel had read in the same batch) is closed after a random delay up to
 * {@code admission.reject-delay}, without a pipeline, TLS engine or timer. One instance per listening socket (a
 * listener has one per I/O thread with {@code server.reuse-port}); all state is confined to that socket's loop.
 */
public final class AdmissionGate extends ChannelInboundHandlerAdapter {
    /** How often a held gate asks again: the wait it adds is small next to a handshake's round trips. */
    static final long RETRY_MILLIS = 2;

    private final AdmissionControl control;
    private final boolean tls;
    private final long maxDelayMillis;
    private Channel kept;
    private ScheduledFuture<?> retry;

    /**
     * The gate of each server channel a listener opens (a listener closed for overload and opened again gets a new
     * channel, and a new gate with it).
     */
    public static ChannelHandler perServerChannel(AdmissionControl control, boolean tls, long maxDelayMillis) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new AdmissionGate(control, tls, maxDelayMillis));
            }
        };
    }

    AdmissionGate(AdmissionControl control, boolean tls, long maxDelayMillis) {
        this.control = control;
        this.tls = tls;
        this.maxDelayMillis = maxDelayMillis;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Channel child)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (kept != null) {
            refuse(ctx, child, AdmissionControl.Rejection.BUSY);
            return;
        }
        AdmissionControl.Rejection why = control.admit(tls);
        if (why == null) {
            ctx.fireChannelRead(child);
            return;
        }
        control.held(why);
        kept = child;
        // the server channel's read loop checks auto-read after each socket: nothing more is accepted
        ctx.channel().config().setAutoRead(false);
        retry = ctx.executor().scheduleWithFixedDelay(() -> tryRelease(ctx), RETRY_MILLIS, RETRY_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private void tryRelease(ChannelHandlerContext ctx) {
        if (kept == null || control.admit(tls) != null) {
            return;
        }
        Channel child = kept;
        kept = null;
        retry.cancel(false);
        retry = null;
        ctx.fireChannelRead(child);
        ctx.channel().config().setAutoRead(true);
    }

    private void refuse(ChannelHandlerContext ctx, Channel child, AdmissionControl.Rejection why) {
        control.rejected(why);
        long delay = maxDelayMillis <= 0 ? 0 : ThreadLocalRandom.current().nextLong(maxDelayMillis + 1);
        // the child was never registered with an event loop: closing it only closes its socket
        ctx.executor().schedule(() -> child.unsafe().closeForcibly(), delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // the listener closed (overload or shutdown): the kept socket goes with it, and the retry stops
        drop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        drop();
    }

    private void drop() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
        if (kept != null) {
            kept.unsafe().closeForcibly();
            kept = null;
        }
    }
}
