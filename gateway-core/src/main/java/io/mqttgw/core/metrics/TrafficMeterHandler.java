package io.mqttgw.core.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/** Counts the bytes each device socket reads and writes, on the wire (before TLS). Stateless, shared. */
@Sharable
public final class TrafficMeterHandler extends ChannelDuplexHandler {
    private final GatewayMetrics metrics;

    public TrafficMeterHandler(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            metrics.bytesRead(buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            metrics.bytesWritten(buf.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
