package io.mqttgw.core.proxy;

import io.mqttgw.core.config.TrustedSources;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * The PROXY phase of a connection on a listener behind an L4 balancer: the peer must be a trusted proxy and must
 * send a PROXY header (v1 or v2, decoded by Netty's {@code HAProxyMessageDecoder} before this handler) within the
 * header timeout; the header's source becomes the device's address in the {@link ConnectionContext}, so logs,
 * authentication and routes see the device, not the balancer. Then the decoder and this handler leave the pipeline.
 * A {@code LOCAL} header (the balancer's own health check) keeps the peer's address. One instance per connection;
 * event loop only.
 */
public final class ProxyHeaderHandler extends ChannelInboundHandlerAdapter {
    private final TrustedSources trusted;
    private final long timeoutMillis;
    private ScheduledFuture<?> timeout;

    public ProxyHeaderHandler(TrustedSources trusted, long timeoutMillis) {
        this.trusted = trusted;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!trusted.trusts(ctx.channel().remoteAddress())) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.UNTRUSTED_PROXY);
            return;
        }
        timeout = ctx.executor().schedule(
                () -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROXY_PROTOCOL_ERROR),
                timeoutMillis, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HAProxyMessage header)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (header.command() == HAProxyCommand.PROXY && header.sourceAddress() != null) {
                ConnectionContext.of(ctx.channel()).remoteAddress(new InetSocketAddress(
                        InetAddress.getByName(header.sourceAddress()), header.sourcePort()));
            }
        } catch (UnknownHostException e) {
            // the decoder only yields IP literals; an unusable one keeps the peer's address
        } finally {
            header.release();
        }
        if (timeout != null) {
            timeout.cancel(false);
        }
        // the decoder removes itself after the one header it reads
        ctx.pipeline().remove(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof HAProxyProtocolException || cause.getCause() instanceof HAProxyProtocolException) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROXY_PROTOCOL_ERROR);
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }
}
