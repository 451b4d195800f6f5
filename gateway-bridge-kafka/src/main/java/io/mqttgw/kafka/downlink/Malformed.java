package io.mqttgw.kafka.downlink;

import java.util.Locale;

/** Why a downlink record was skipped; each is a label of {@code mqttgw_kafka_downlink_malformed_total}. */
public enum Malformed {
    /** No key and no {@code broadcast: true} header: no device to send to. */
    MISSING_KEY,
    /** No {@code mqtt.topic} header, or an empty one. */
    MISSING_TOPIC,
    /** A topic with wildcards, a NUL character or more than 65535 bytes. */
    INVALID_TOPIC,
    /** {@code mqtt.qos} is not 0, 1 or 2. */
    BAD_QOS,
    /** {@code mqtt.retain} is not true or false. */
    BAD_RETAIN,
    /** {@code expires.at} is not a non-negative whole number. */
    BAD_EXPIRY,
    /**
     * An MQTT 5.0 property header ({@link io.mqttgw.kafka.mapping.PropertyHeaders}) that cannot be sent: a response
     * topic with wildcards, an unknown payload format.
     */
    BAD_PROPERTY;

    private final String label = name().toLowerCase(Locale.ROOT);

    public String label() {
        return label;
    }
}
