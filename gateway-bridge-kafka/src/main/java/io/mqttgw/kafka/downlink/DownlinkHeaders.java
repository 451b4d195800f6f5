package io.mqttgw.kafka.downlink;

/**
 * The record format of a downlink topic, shared by the gateway's consumer and {@code DownlinkClient}. Key: the
 * device's client id (UTF-8), or {@link #BROADCAST_KEY} for every subscribed device of the node. Value: the payload.
 * An MQTT 5.0 device also gets the PUBLISH properties named by the headers of
 * {@link io.mqttgw.kafka.mapping.PropertyHeaders} (content type, response topic, correlation data, payload format,
 * user properties), and the message expiry interval left until {@link #EXPIRES_AT}.
 */
public final class DownlinkHeaders {
    private DownlinkHeaders() {
    }

    /** Required: the MQTT topic the device receives the message on (UTF-8, no wildcards). */
    public static final String TOPIC = "mqtt.topic";
    /** Optional: {@code 0}, {@code 1} or {@code 2}; {@code 1} when absent. */
    public static final String QOS = "mqtt.qos";
    /** Optional: {@code true} or {@code false}; {@code false} when absent. */
    public static final String RETAIN = "mqtt.retain";
    /** Optional: epoch milliseconds after which the message is not delivered; absent or {@code 0} for never. */
    public static final String EXPIRES_AT = io.mqttgw.kafka.mapping.PropertyHeaders.EXPIRES_AT;
    /** Optional: {@code true} makes the record a broadcast whatever its key. */
    public static final String BROADCAST = "broadcast";
    /** The key of a broadcast record. */
    public static final String BROADCAST_KEY = "*";
    /** QoS when the record has no {@link #QOS} header. */
    public static final int DEFAULT_QOS = 1;
}
