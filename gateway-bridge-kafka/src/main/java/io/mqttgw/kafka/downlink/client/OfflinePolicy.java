package io.mqttgw.kafka.downlink.client;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.SessionStore;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** What {@link DownlinkClient} does with a command for a device that is on no node. */
public final class OfflinePolicy {
    private static final OfflinePolicy DROP = new OfflinePolicy(null, null);

    private final String topic;
    private final Function<DownlinkMessage, ? extends CompletionStage<SessionStore.Append>> store;

    private OfflinePolicy(String topic, Function<DownlinkMessage,
            ? extends CompletionStage<SessionStore.Append>> store) {
        this.topic = topic;
        this.store = store;
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
        return new OfflinePolicy(topic, null);
    }

    /**
     * Keep a QoS 1/2 command in the device's persistent session (clean session 0), which the gateway delivers, in
     * order, when the device reconnects to any node: e.g. {@code OfflinePolicy.store(directory::storeOffline)} with
     * gateway-routing's {@code RedisDeviceDirectory}. The result says {@code STORED}, or {@code NOT_CONNECTED} when
     * the device has no persistent session (or QoS 0), or {@code QUEUE_FULL} at {@code session.max-pending}. The
     * stored copy has the retain flag cleared and does not become the topic's retained message (a retained message
     * goes through a node: {@code DownlinkClient.broadcast(nodes, topic, qos, true, payload)}).
     */
    public static OfflinePolicy store(
            Function<DownlinkMessage, ? extends CompletionStage<SessionStore.Append>> store) {
        return new OfflinePolicy(null, Objects.requireNonNull(store, "store"));
    }

    /** The offline topic, or null when dropping or storing. */
    public String topic() {
        return topic;
    }

    /** The session store's append, or null. */
    Function<DownlinkMessage, ? extends CompletionStage<SessionStore.Append>> store() {
        return store;
    }

    @Override
    public String toString() {
        return topic != null ? "produce to " + topic : store != null ? "store in the persistent session" : "drop";
    }
}
