package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttProperties.MqttProperty;

/**
 * The MQTT 5.0 properties of CONNECT and CONNACK: what a device announces (its limits become the connection's
 * {@link ProtocolCapabilities}) and what the gateway answers (its own limits and what it supports). Stateless; the
 * {@link MqttConnectHandler} calls it only for a level-5 CONNECT.
 */
final class Mqtt5Connect {
    private Mqtt5Connect() {
    }

    /** The device's limits from its CONNECT properties (the spec's defaults for those it left out). */
    static ProtocolCapabilities capabilities(MqttProperties connect) {
        return ProtocolCapabilities.mqtt5(
                intValue(connect, MqttProperties.RECEIVE_MAXIMUM, 65_535),
                intValue(connect, MqttProperties.MAXIMUM_PACKET_SIZE,
                        ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE),
                intValue(connect, MqttProperties.TOPIC_ALIAS_MAXIMUM, 0),
                intValue(connect, MqttProperties.REQUEST_PROBLEM_INFORMATION, 1) == 1,
                intValue(connect, MqttProperties.REQUEST_RESPONSE_INFORMATION, 0) == 1);
    }

    /** Whether CONNECT asks for enhanced authentication (an authentication method), which the gateway refuses. */
    static boolean namesAuthenticationMethod(MqttProperties connect) {
        return connect.getProperty(MqttProperties.AUTHENTICATION_METHOD) != null;
    }

    /** The session expiry interval CONNECT asks for, in seconds (0 when absent; 4,294,967,295: never). */
    static long sessionExpirySeconds(MqttProperties connect) {
        return Integer.toUnsignedLong(intValue(connect, MqttProperties.SESSION_EXPIRY_INTERVAL, 0));
    }

    /** The will delay interval of a will's properties, in seconds (0 when absent). */
    static long willDelaySeconds(MqttProperties will) {
        return Integer.toUnsignedLong(intValue(will, MqttProperties.WILL_DELAY_INTERVAL, 0));
    }

    /**
     * The accepting CONNACK's properties: the gateway's limits (receive maximum: the uplink window; maximum packet
     * size; topic alias maximum), what it supports (retain, wildcard subscriptions, subscription identifiers; not
     * shared subscriptions; maximum QoS left out: QoS 2 is taken), and what it decided for this device.
     *
     * @param assignedClientId the client id the gateway gave a device that sent an empty one, or null
     * @param serverKeepAlive  the keepalive the gateway imposes in seconds, or -1 to keep the device's
     * @param sessionExpiry    the session expiry the gateway grants in seconds when below the asked one, or -1
     */
    static MqttProperties connAck(GatewayConfig.Mqtt mqtt, String assignedClientId, int serverKeepAlive,
                                  long sessionExpiry) {
        MqttMessageBuilders.ConnAckPropertiesBuilder b = new MqttMessageBuilders.ConnAckPropertiesBuilder()
                .receiveMaximum(mqtt.maxInflightUplink())
                .maximumPacketSize(mqtt.maxPacketSize())
                .topicAliasMaximum(mqtt.topicAliasMaximum())
                .retainAvailable(true)
                .wildcardSubscriptionAvailable(true)
                .subscriptionIdentifiersAvailable(true)
                .sharedSubscriptionAvailable(false);
        if (assignedClientId != null) {
            b.assignedClientId(assignedClientId);
        }
        if (serverKeepAlive >= 0) {
            b.serverKeepAlive(serverKeepAlive);
        }
        if (sessionExpiry >= 0) {
            b.sessionExpiryInterval(sessionExpiry);
        }
        return b.build();
    }

    private static int intValue(MqttProperties properties, int id, int absent) {
        MqttProperty<?> p = properties == null ? null : properties.getProperty(id);
        return p != null && p.value() instanceof Integer i ? i : absent;
    }
}
