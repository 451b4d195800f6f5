package io.mqttgw.kafka.downlink.client;

import java.util.Objects;

/** What {@link DownlinkClient} does with a command for a device that is on no node. */
public final class OfflinePolicy {
    private static final OfflinePolicy DROP = new OfflinePolicy(null);

    private final String topic;

    private OfflinePolicy(String topic) {
        this.topic = topic;
    }

    /** Drop it; the result says {@code NOT_CONNECTED}. The default. */
    public static OfflinePolicy drop() {
        return DROP;
    }

    /** Produce it, in the downlink record format, to {@code topic} for a service of yours to handle. */
    public static OfflinePolicy produceTo(String topic) {
        Objects.requireNonNull(topic, "topic");
        if (topic.isBlank()) {
            throw new IllegalArgumentException("offline topic is empty");
        }
        return new OfflinePolicy(topic);
    }

    /** The offline topic, or null when dropping. */
    public String topic() {
        return topic;
    }

    @Override
    public String toString() {
        return topic == null ? "drop" : "produce to " + topic;
    }
}
