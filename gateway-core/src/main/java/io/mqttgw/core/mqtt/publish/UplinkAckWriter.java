package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttMessage;

/**
 * A connection's uplink acknowledgements on their way out, in the order the PUBLISHes arrived, and its reading paused
 * and resumed with them: every path that queues an acknowledgement stops reading at the window, so answers waiting
 * behind a slow sink are bounded whichever path queued them, and reading resumes once the window has drained. Used by
 * {@link UplinkPublishHandler} (answers that go no further) and {@link UplinkDelivery} (answers the sink decided).
 * Stateless (state lives in {@link UplinkAcks}), shared; event loop only.
 */
final class UplinkAckWriter {
    private final GatewayMetrics metrics;

    UplinkAckWriter(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    void pauseAtWindow(Channel channel, UplinkAcks acks) {
        if (acks.full()) {
            pause(channel, acks);
        }
    }

    /** Stops reading from the connection until its acknowledgements have drained (window full, or a message held). */
    void pause(Channel channel, UplinkAcks acks) {
        if (!acks.readingPaused()) {
            acks.readingPaused(true);
            metrics.readingPaused(true);
            channel.config().setAutoRead(false);
        }
    }

    void writeReady(Channel channel, UplinkAcks acks) {
        boolean wrote = false;
        for (MqttMessage ack = acks.pollAck(); ack != null; ack = acks.pollAck()) {
            channel.write(ack);
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
        if (acks.readingPaused() && acks.drained()) {
            acks.readingPaused(false);
            metrics.readingPaused(false);
            if (channel.isWritable() && !ConnectionContext.of(channel).drainAfterAcks()) {
                // an unwritable channel stays paused; the writability watch resumes it once it drains
                channel.config().setAutoRead(true);
            }
        }
        if (acks.size() == 0) {
            DeviceDisconnector.owedAcksWritten(channel);
        }
    }
}
