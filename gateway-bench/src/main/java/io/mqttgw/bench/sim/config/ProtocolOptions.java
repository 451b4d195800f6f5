package io.mqttgw.bench.sim.config;

import java.time.Duration;

/**
 * What the devices put in CONNECT: the MQTT version and, for 5.0 only, the session expiry interval (0 ends the
 * session with the connection, as a 3.1.1 clean session does) and the receive maximum (QoS 1 downlink the device
 * accepts unacknowledged at once). {@code cleanSession} false asks for a persistent session (3.1.1 clean session 0,
 * 5.0 clean start 0), so a device that moves to another node learns from CONNACK whether its session followed.
 */
public record ProtocolOptions(MqttVersion version, Duration sessionExpiry, int receiveMaximum, boolean cleanSession) {
    public ProtocolOptions(MqttVersion version, Duration sessionExpiry, int receiveMaximum) {
        this(version, sessionExpiry, receiveMaximum, true);
    }

    public static ProtocolOptions v311() {
        return new ProtocolOptions(MqttVersion.V3_1_1, Duration.ZERO, 65_535);
    }

    public boolean isV5() {
        return version == MqttVersion.V5;
    }
}
