package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.mqtt.MqttReasonCodes.PubAck;

/**
 * A QoS 1/2 PUBLISH's way through the {@code UplinkSink} to its acknowledgement. The sink completes on its own
 * thread; the completion hops back to the channel's event loop. A message the sink refuses for capacity (its bound is
 * full: Kafka slow or away) is no failure: the connection holds it (it and what the device sent after it, in order),
 * stops reading, and hands it to the sink again when the sink says it has room ({@link UplinkSink#waitForRoom},
 * through {@link HeldUplink}); reading resumes as after a full window. The device stays connected and its
 * acknowledgements wait; it cannot be read meanwhile, so its keepalive is not held against it (the keepalive check
 * skips a connection whose reading the gateway paused). Held messages of a connection that closes are not
 * acknowledged (counted as not delivered). A message the sink refuses otherwise or fails is not acknowledged, nor is
 * anything after it, and the connection is closed (reason sink_failed: an MQTT 3.1.1 device retransmits only after a
 * reconnect); on a connection that takes reason codes it is answered 0x97 quota exceeded (a refusal: closed sink,
 * or capacity in a sink that cannot say when it has room) or 0x80 (a failure) and the device decides. Stateless
 * (state lives in {@link UplinkAcks}), shared; event loop only.
 */
final class UplinkDelivery {
    private final UplinkSink sink;
    private final GatewayMetrics metrics;
    private final UplinkAckWriter acksOut;

    UplinkDelivery(UplinkSink sink, GatewayMetrics metrics, UplinkAckWriter acksOut) {
        this.sink = sink;
        this.metrics = metrics;
        this.acksOut = acksOut;
    }

    void send(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message) {
        EventLoop loop = channel.eventLoop();
        sink.send(message).whenComplete((ignored, error) -> {
            if (loop.inEventLoop()) {
                complete(channel, acks, pending, message, error);
            } else {
                loop.execute(() -> complete(channel, acks, pending, message, error));
            }
        });
    }

    /**
     * The sink has room again: the held messages go to it in order, until one is refused for capacity again (it then
     * waits at the front of the sink's queue). Reading resumes once they are taken and the window has drained.
     */
    void sendHeld(Channel channel, UplinkAcks acks, HeldUplink wait) {
        if (!channel.isActive()) {
            wait.end();
            return;
        }
        while (!wait.registered) {
            UplinkAcks.Pending p = acks.pollHeld();
            if (p == null) {
                break;
            }
            UplinkMessage message = p.held;
            p.held = null;
            send(channel, acks, p, message);
        }
        if (!wait.registered) {
            wait.end();
            if (channel.isActive()) {
                acksOut.writeReady(channel, acks);
            }
        }
    }

    /**
     * Holds a message the sink refused for capacity, in order, and pauses reading: false when the
     * sink cannot say when it has room (then the refusal is final) or the connection is gone.
     */
    private boolean hold(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message) {
        if (!channel.isActive()) {
            return false;
        }
        HeldUplink wait = acks.roomWait();
        if (wait == null) {
            wait = new HeldUplink(channel, acks, this, sink);
            acks.roomWait(wait);
        }
        if (!wait.registered) {
            // registered before it may be told: the sink may tell at once, and the task then runs after this one
            wait.registered = true;
            if (!sink.waitForRoom(wait, message)) {
                wait.registered = false;
                return false;
            }
        }
        acks.holdRefused(pending, message);
        metrics.uplinkHeld();
        acksOut.pause(channel, acks);
        return true;
    }

    private void complete(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message,
                          Throwable error) {
        if (error == null) {
            pending.state = 1;
        } else if (UplinkRejectedException.isCapacity(error) && hold(channel, acks, pending, message)) {
            return;
        } else if (ConnectionContext.of(channel).capabilities().reasonCodes()) {
            // MQTT 5.0 says it on the acknowledgement: quota exceeded when the sink had no room, else unspecified
            boolean refusal = UplinkRejectedException.isRefusal(error);
            metrics.uplinkNotDelivered(refusal);
            metrics.publishRefused(refusal ? "quota_exceeded" : "unspecified_error");
            pending.state = 1;
            pending.reason = (refusal ? PubAck.QUOTA_EXCEEDED : PubAck.UNSPECIFIED_ERROR).byteValue();
        } else {
            pending.state = 2;
            metrics.uplinkNotDelivered(UplinkRejectedException.isRefusal(error));
            // no acknowledgement past this message: the device resends it, and what followed, once reconnected
            DeviceDisconnector.close(channel, DisconnectReason.SINK_FAILED);
            return;
        }
        if (channel.isActive()) {
            acksOut.writeReady(channel, acks);
        }
    }
}
