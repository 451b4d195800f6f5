package io.mqttgw.core.spi;

/**
 * One device PUBLISH on its way out of the gateway. The payload array belongs to the message; sinks must not
 * change it.
 *
 * @param clientId          the device's client id (the record key downstream)
 * @param topic             MQTT topic
 * @param qos               0, 1 or 2
 * @param retain            the PUBLISH's retain flag
 * @param payload           payload bytes
 * @param receivedAtMillis  receive time, epoch milliseconds
 * @param properties        MQTT 5.0 PUBLISH properties ({@link MessageProperties#NONE} for 3.1.1)
 * @param expiryInterval    MQTT 5.0 message expiry interval in seconds as the device sent it, counted from
 *                          {@code receivedAtMillis}; {@link #NO_EXPIRY} when the message does not expire (3.1.1, or
 *                          no such property)
 */
public record UplinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                            long receivedAtMillis, MessageProperties properties, long expiryInterval) {

    /** {@link #expiryInterval} of a message that does not expire. */
    public static final long NO_EXPIRY = -1;

    public UplinkMessage {
        properties = properties == null ? MessageProperties.NONE : properties;
    }

    /** A message that does not expire. */
    public UplinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                         long receivedAtMillis, MessageProperties properties) {
        this(clientId, topic, qos, retain, payload, receivedAtMillis, properties, NO_EXPIRY);
    }

    /** An MQTT 3.1.1 message, or a 5.0 one without PUBLISH properties. */
    public UplinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                         long receivedAtMillis) {
        this(clientId, topic, qos, retain, payload, receivedAtMillis, MessageProperties.NONE, NO_EXPIRY);
    }

    /** True when the device gave the message an expiry interval. */
    public boolean expires() {
        return expiryInterval != NO_EXPIRY;
    }
}
