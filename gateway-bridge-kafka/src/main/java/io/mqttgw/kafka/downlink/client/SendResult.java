package io.mqttgw.kafka.downlink.client;

/**
 * What {@link DownlinkClient#send} did with a command.
 *
 * @param status     {@link Status#SENT} to the node holding the device; else what the offline policy did
 * @param nodeId     the node whose topic got the record; null when not connected
 * @param kafkaTopic the topic written: the node's downlink topic, the offline topic, or null when dropped
 * @param partition  the record's partition, -1 when nothing was written
 * @param offset     the record's offset, -1 when nothing was written
 */
public record SendResult(Status status, String nodeId, String kafkaTopic, int partition, long offset) {

    public enum Status {
        /** Produced to the downlink topic of the node the route table names. */
        SENT,
        /** The device is on no node: dropped, or produced to the offline topic, as the offline policy says. */
        NOT_CONNECTED,
        /** The device is on no node and its persistent session keeps the command until it reconnects. */
        STORED,
        /** The device is on no node and its persistent session holds {@code session.max-pending} commands already. */
        QUEUE_FULL
    }

    static SendResult dropped() {
        return offline(Status.NOT_CONNECTED);
    }

    static SendResult offline(Status status) {
        return new SendResult(status, null, null, -1, -1);
    }

    public boolean sent() {
        return status == Status.SENT;
    }

    /** Not connected, and written to the offline topic. */
    public boolean offlineQueued() {
        return status == Status.NOT_CONNECTED && kafkaTopic != null;
    }
}
