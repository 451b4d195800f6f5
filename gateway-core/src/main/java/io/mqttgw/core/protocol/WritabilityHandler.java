package io.mqttgw.core.protocol;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Output bounded like input: watches the channel's writability (its outbound buffer against the write-buffer water
 * marks). While the channel is unwritable the connection is not read, so the device's own requests (PINGREQ,
 * PUBLISH) stop producing answers; the downlink session holds its queue back meanwhile and resumes it here once the
 * channel drains. A channel unwritable longer than {@code mqtt.write-stall-timeout}, or one written past
 * {@code mqtt.max-pending-outbound} queued bytes while unwritable, is closed (reason slow_consumer). Reading
 * resumes only once the session is open and uplink back-pressure does not hold it too. One instance per connection;
 * event loop only.
 */
public final class WritabilityHandler extends ChannelDuplexHandler {
    private final GatewayMetrics metrics;
    private final long stallMillis;
    private final long maxPendingBytes;
    private ScheduledFuture<?> stall;

    public WritabilityHandler(GatewayMetrics metrics, long stallMillis, long maxPendingBytes) {
        this.metrics = metrics;
        this.stallMillis = stallMillis;
        this.maxPendingBytes = maxPendingBytes;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean wasWritable = ctx.channel().isWritable();
        ctx.write(msg, promise);
        // a single large packet to a writable channel is fine; writes that keep coming once it is unwritable are not
        if (!wasWritable && pendingBytes(ctx.channel()) > maxPendingBytes) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.SLOW_CONSUMER);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (!channel.isWritable()) {
            if (stall == null && channel.isActive()) {
                metrics.unwritable(true);
                channel.config().setAutoRead(false);
                stall = ctx.executor().schedule(
                        () -> DeviceDisconnector.close(channel, DisconnectReason.SLOW_CONSUMER),
                        stallMillis, TimeUnit.MILLISECONDS);
            }
        } else if (stall != null) {
            endStall();
            ConnectionContext context = ConnectionContext.of(channel);
            if (context.sessionOpen()) {
                DownlinkSession downlink = context.downlinkOrNull();
                if (downlink != null) {
                    downlink.writable();
                }
                if (!context.uplinkPaused()) {
                    channel.config().setAutoRead(true);
                }
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (stall != null) {
            endStall();
        }
        ctx.fireChannelInactive();
    }

    private void endStall() {
        stall.cancel(false);
        stall = null;
        metrics.unwritable(false);
    }

    private static long pendingBytes(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }
}
