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
 */
public record UplinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                            long receivedAtMillis, MessageProperties properties) {

    public UplinkMessage {
        properties = properties == null ? MessageProperties.NONE : properties;
    }

    /** An MQTT 3.1.1 message, or a 5.0 one without PUBLISH properties. */
    public UplinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload,
                         long receivedAtMillis) {
        this(clientId, topic, qos, retain, payload, receivedAtMillis, MessageProperties.NONE);
    }
}
