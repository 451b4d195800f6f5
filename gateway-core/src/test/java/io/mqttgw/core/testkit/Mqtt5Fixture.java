package io.mqttgw.core.testkit;

import io.mqttgw.core.connection.ProtocolCapabilities;
import io.netty.handler.codec.mqtt.MqttVersion;

/** MQTT 5.0 capabilities for unit tests that set up a connection without a CONNECT. */
public final class Mqtt5Fixture {
    private Mqtt5Fixture() {
    }

    /** A 5.0 device that announced nothing (no limits of its own). */
    public static ProtocolCapabilities mqtt5() {
        return mqtt5(65_535, ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE);
    }

    /** A 5.0 device that announced this receive maximum and maximum packet size. */
    public static ProtocolCapabilities mqtt5(int receiveMaximum, int maximumPacketSize) {
        return new ProtocolCapabilities(MqttVersion.MQTT_5, receiveMaximum, maximumPacketSize, 0, true, false);
    }
}
