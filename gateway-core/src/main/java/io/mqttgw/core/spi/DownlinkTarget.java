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

    /** What became of the copy of a message with the retain flag kept as its topic's retained message. */
    enum Retained {
        /** Stored: later subscribers to the topic get it, whatever became of the delivery. */
        STORED,
        /** The message had an empty payload: the topic's retained message was deleted. */
        DELETED,
        /** The store refused it or failed (past {@code session.max-retained}, store unreachable): not kept. */
        REFUSED
    }

    /**
     * What became of one message: its delivery, and for one with the retain flag the retained copy (null without the
     * flag, or when the implementation does not report it). The two are independent: a device that is not connected
     * gets nothing now and the retained message all the same when it subscribes.
     */
    record Report(Outcome outcome, Retained retained) {
    }

    /** What became of a broadcast: the devices it was handed to, and the retained copy as in {@link Report}. */
    record BroadcastReport(int handedTo, Retained retained) {
    }

    /** Delivers to one device; the stage completes with the outcome (for QoS 1/2 once the device acknowledged). */
    CompletionStage<Outcome> deliver(DownlinkMessage message);

    /**
     * {@link #deliver}, completing once both the delivery and the storing of the retained copy are known. This
     * default does not know the latter.
     */
    default CompletionStage<Report> deliverReporting(DownlinkMessage message) {
        return deliver(message).thenApply(outcome -> new Report(outcome, null));
    }

    /** {@link #broadcast}, completing once the retained copy is known too. This default does not know it. */
    default CompletionStage<BroadcastReport> broadcastReporting(DownlinkMessage message) {
        return broadcast(message).thenApply(n -> new BroadcastReport(n, null));
    }

    /**
     * Delivers to every device on this node subscribed to a filter matching the message's topic. The PUBLISH is
     * encoded once and shared; only its packet id differs per device. The stage completes with the number of
     * devices it was handed to.
     */
    CompletionStage<Integer> broadcast(DownlinkMessage message);
}
