package io.mqttgw.core.connection;

import io.netty.handler.codec.mqtt.MqttVersion;

/**
 * What one connection's protocol version, and the limits its device announced in CONNECT, allow the gateway to send
 * and expect. Handlers ask this ("does this peer take reason codes?", "what is its receive maximum?") instead of
 * comparing protocol versions. Immutable; set once at CONNECT. Every 3.1 / 3.1.1 connection shares one constant, so
 * those connections pay a reference and nothing more.
 *
 * @param version           the protocol the device connected with
 * @param receiveMaximum    QoS 1/2 PUBLISHes the device accepts unacknowledged (MQTT 5.0 receive maximum; 65,535
 *                          when it sent none, and for 3.1.1)
 * @param maximumPacketSize the largest packet the device accepts, in bytes (the protocol maximum when it sent none)
 * @param topicAliasMaximum topic aliases the device accepts on downlink (0: none; always 0 for 3.1.1)
 * @param problemInformation the device accepts a reason string and user properties on any packet (MQTT 5.0 request
 *                          problem information; on for 5.0 unless it asked otherwise)
 * @param responseInformation the device asked for response information in CONNACK
 */
public record ProtocolCapabilities(MqttVersion version, int receiveMaximum, int maximumPacketSize,
                                   int topicAliasMaximum, boolean problemInformation, boolean responseInformation) {

    /** The largest packet MQTT can frame: a 4-byte remaining length of 268,435,455 plus the fixed header. */
    public static final int PROTOCOL_MAXIMUM_PACKET_SIZE = 268_435_460;

    public static final ProtocolCapabilities MQTT_3_1_1 = new ProtocolCapabilities(MqttVersion.MQTT_3_1_1, 65_535,
            PROTOCOL_MAXIMUM_PACKET_SIZE, 0, false, false);

    public static final ProtocolCapabilities MQTT_3_1 = new ProtocolCapabilities(MqttVersion.MQTT_3_1, 65_535,
            PROTOCOL_MAXIMUM_PACKET_SIZE, 0, false, false);

    /** A 5.0 device that announced no limits: shared by every such connection. */
    public static final ProtocolCapabilities MQTT_5 = new ProtocolCapabilities(MqttVersion.MQTT_5, 65_535,
            PROTOCOL_MAXIMUM_PACKET_SIZE, 0, true, false);

    /**
     * A 5.0 connection's capabilities: the shared {@link #MQTT_5} when the device announced the defaults, so only a
     * device with limits of its own pays for an instance (32 bytes).
     */
    public static ProtocolCapabilities mqtt5(int receiveMaximum, int maximumPacketSize, int topicAliasMaximum,
                                             boolean problemInformation, boolean responseInformation) {
        ProtocolCapabilities c = new ProtocolCapabilities(MqttVersion.MQTT_5, receiveMaximum, maximumPacketSize,
                topicAliasMaximum, problemInformation, responseInformation);
        return c.equals(MQTT_5) ? MQTT_5 : c;
    }

    /** The shared constant for a connection whose CONNECT is 3.1 or 3.1.1. */
    public static ProtocolCapabilities legacy(MqttVersion version) {
        return version == MqttVersion.MQTT_3_1 ? MQTT_3_1 : MQTT_3_1_1;
    }

    /** Acknowledgements, SUBACK and DISCONNECT carry MQTT 5.0 reason codes; the server may send DISCONNECT. */
    public boolean reasonCodes() {
        return version == MqttVersion.MQTT_5;
    }

    /** Packets carry MQTT 5.0 properties. */
    public boolean properties() {
        return version == MqttVersion.MQTT_5;
    }
}
