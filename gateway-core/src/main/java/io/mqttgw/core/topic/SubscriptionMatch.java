package io.mqttgw.core.topic;

/**
 * The subscriptions of one MQTT 5.0 connection that match a downlink topic, folded into what its PUBLISH carries.
 *
 * @param qos               the highest QoS granted among them
 * @param retainAsPublished a live message keeps its retain flag (one of them asked for it)
 * @param identifiers       their subscription identifiers, each sent as a property of the PUBLISH; may be empty
 */
public record SubscriptionMatch(int qos, boolean retainAsPublished, int[] identifiers) {
    /** Shared because an empty array cannot be changed. */
    public static final int[] NO_IDENTIFIERS = new int[0];
}
