package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/**
 * The gateway side of downlink: hands messages to the connections of this node's devices. Callable from any
 * thread; the work happens on each connection's event loop.
 */
public interface DownlinkTarget {

    /** What became of a downlink message. */
    enum Outcome {
        /** QoS 0 written, or QoS 1/2 acknowledged by the device. */
        DELIVERED,
        /** The device has no session on this node. */
        NOT_CONNECTED,
        /** The device did not subscribe to a filter matching the topic. */
        NOT_SUBSCRIBED,
        /** Expired, or retransmitted {@code downlink.max-retries} times without an acknowledgement. */
        EXPIRED,
        /** The connection's downlink queue, or the device's persistent session, was full. */
        QUEUE_FULL,
        /** QoS 0 to a device that is not reading what it is sent (its channel is unwritable): dropped. */
        NOT_WRITABLE,
        /** The topic is past {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels}: refused, nothing sent. */
        INVALID_TOPIC,
        /**
         * The PUBLISH would be larger than the maximum packet size the device announced (MQTT 5.0): not sent, since the
         * device would have to disconnect for it (MQTT-3.1.2-24).
         */
        TOO_LARGE,
        /**
         * Kept in the device's persistent session (clean session 0), which is offline or went offline before it
         * acknowledged: sent again when it reconnects, to whichever node.
         */
        QUEUED
    }

    /** Delivers to one device; the stage completes with the outcome (for QoS 1/2 once the device acknowledged). */
    CompletionStage<Outcome> deliver(DownlinkMessage message);

    /**
     * Delivers to every device on this node subscribed to a filter matching the message's topic. The PUBLISH is
     * encoded once and shared; only its packet id differs per device. The stage completes with the number of
     * devices it was handed to.
     */
    CompletionStage<Integer> broadcast(DownlinkMessage message);
}
