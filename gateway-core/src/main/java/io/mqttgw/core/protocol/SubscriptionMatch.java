package io.mqttgw.core.protocol;

/**
 * The subscriptions of one MQTT 5.0 connection that match a downlink topic, folded into what its PUBLISH carries.
 *
 * @param qos               the highest QoS granted among them
 * @param retainAsPublished a live message keeps its retain flag (one of them asked for it)
 * @param identifiers       their subscription identifiers, each sent as a property of the PUBLISH; may be empty
 */
record SubscriptionMatch(int qos, boolean retainAsPublished, int[] identifiers) {
    static final int[] NO_IDENTIFIERS = new int[0];
}
