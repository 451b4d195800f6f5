package io.mqttgw.core.spi;

/**
 * A message from the platform for one device, or (in a broadcast) for every device subscribed to its topic.
 *
 * @param clientId        the device's client id; ignored by a broadcast (may be null there)
 * @param topic           MQTT topic the device receives it on (must match one of its subscriptions)
 * @param qos             0, 1 or 2 (capped at the QoS the device subscribed with)
 * @param retain          the PUBLISH's retain flag
 * @param payload         payload bytes; the array belongs to the message and is not changed
 * @param expiresAtMillis epoch milliseconds after which it is not delivered (nor retried); 0 for never
 * @param properties      MQTT 5.0 PUBLISH properties sent to a 5.0 device (a 3.1.1 device gets the payload alone)
 */
public record DownlinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                              long expiresAtMillis, MessageProperties properties) {

    public DownlinkMessage {
        properties = properties == null ? MessageProperties.NONE : properties;
    }

    public DownlinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                           long expiresAtMillis) {
        this(clientId, topic, qos, retain, payload, expiresAtMillis, MessageProperties.NONE);
    }

    public DownlinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload) {
        this(clientId, topic, qos, retain, payload, 0L, MessageProperties.NONE);
    }

    /** This message with another retain flag, all else kept. */
    public DownlinkMessage withRetain(boolean value) {
        return value == retain ? this : new DownlinkMessage(clientId, topic, qos, value, payload, expiresAtMillis,
                properties);
    }

    /** This message addressed to another client id (or session key), all else kept. */
    public DownlinkMessage withClientId(String value) {
        return new DownlinkMessage(value, topic, qos, retain, payload, expiresAtMillis, properties);
    }

    public boolean expired(long nowMillis) {
        return expiresAtMillis > 0 && nowMillis >= expiresAtMillis;
    }
}
