package io.mqttgw.core.connection;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Output bounded like input: watches the channel's writability (its outbound buffer against the write-buffer water
 * marks). While the channel is unwritable the connection is not read, so the device's own requests (PINGREQ,
 * PUBLISH) stop producing answers; the downlink session holds its queue back meanwhile and resumes it here once the
 * channel drains. A channel unwritable longer than {@code mqtt.write-stall-timeout}, or one written past
 * {@code mqtt.max-pending-outbound} queued bytes while unwritable, is closed (reason slow_consumer). Reading
 * resumes only once the session is open and uplink back-pressure does not hold it too. Called by
 * {@code OutboundPacketHandler}; the one piece of state, the stall's close timer, lives in {@link ConnectionContext}
 * and only while the channel is unwritable (no handler object per connection). Stateless, shared; event
 * loop only.
 */
public final class WritabilityWatch {
    private final GatewayMetrics metrics;
    private final long stallMillis;
    private final long maxPendingBytes;

    public WritabilityWatch(GatewayMetrics metrics, long stallMillis, long maxPendingBytes) {
        this.metrics = metrics;
        this.stallMillis = stallMillis;
        this.maxPendingBytes = maxPendingBytes;
    }

    /**
     * A packet was just written to {@code channel}; {@code wasWritable} is what the channel was before. A single large
     * packet to a writable channel is fine; writes that keep coming once it is unwritable are not.
     */
    public void written(Channel channel, boolean wasWritable) {
        if (!wasWritable && pendingBytes(channel) > maxPendingBytes) {
            DeviceDisconnector.close(channel, DisconnectReason.SLOW_CONSUMER);
        }
    }

    /** The channel's writability changed: a stall starts (reading stops, close timer set) or ends. */
    public void changed(Channel channel) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (!channel.isWritable()) {
            if (context.writeStall() == null && channel.isActive()) {
                metrics.unwritable(true);
                channel.config().setAutoRead(false);
                context.writeStall(channel.eventLoop().schedule(
                        () -> DeviceDisconnector.close(channel, DisconnectReason.SLOW_CONSUMER),
                        stallMillis, TimeUnit.MILLISECONDS));
            }
        } else if (context.writeStall() != null) {
            endStall(context);
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
    }

    /** The channel closed: a stall it was in ends (its timer with it). */
    public void closed(Channel channel) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (context != null && context.writeStall() != null) {
            endStall(context);
        }
    }

    private void endStall(ConnectionContext context) {
        context.writeStall().cancel(false);
        context.writeStall(null);
        metrics.unwritable(false);
    }

    private static long pendingBytes(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }
}
