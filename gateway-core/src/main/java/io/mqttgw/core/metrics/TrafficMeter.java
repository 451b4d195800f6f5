package io.mqttgw.core.metrics;

import io.netty.buffer.ByteBuf;

/**
 * Counts the bytes each device socket reads and writes, on the wire (before TLS). Called by the pipeline's first entry
 * ({@code protocol.DeviceSocketHandler}), which sees every byte that crosses the socket. Stateless, shared.
 */
public final class TrafficMeter {
    private final GatewayMetrics metrics;

    public TrafficMeter(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    /** A message read from the socket; only bytes count. */
    public void read(Object msg) {
        if (msg instanceof ByteBuf buf) {
            metrics.bytesRead(buf.readableBytes());
        }
    }

    /** A message on its way to the socket; only bytes count. */
    public void written(Object msg) {
        if (msg instanceof ByteBuf buf) {
            metrics.bytesWritten(buf.readableBytes());
        }
    }
}
