package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.connection.ProtocolCapabilities;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;

/**
 * Why a CONNECT is refused, with the CONNACK code each protocol has for it: the 3.1.1 return code and the 5.0 reason
 * code. The one place refusals are mapped; {@link MqttConnectHandler} picks one by the connection's capabilities.
 */
enum ConnectRefusal {
    IDENTIFIER_REJECTED(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
            MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID),
    NOT_AUTHORIZED(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED,
            MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5),
    BAD_CREDENTIALS(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD,
            MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD),
    /** The authentication service did not answer (in time). */
    SERVER_UNAVAILABLE(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
            MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE_5),
    /** The node is overloaded. */
    SERVER_BUSY(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
            MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY),
    UNSUPPORTED_PROTOCOL(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION,
            MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION),
    /** 5.0 only: CONNECT named an authentication method (enhanced authentication is not offered). */
    BAD_AUTHENTICATION_METHOD(null, MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD),
    /** An invalid will topic: 3.1.1 has no return code for it, the connection is closed without CONNACK. */
    TOPIC_NAME_INVALID(null, MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID);

    private final MqttConnectReturnCode legacy;
    private final MqttConnectReturnCode mqtt5;

    ConnectRefusal(MqttConnectReturnCode legacy, MqttConnectReturnCode mqtt5) {
        this.legacy = legacy;
        this.mqtt5 = mqtt5;
    }

    /** The CONNACK code for a connection with {@code capabilities}; null: close without a CONNACK. */
    MqttConnectReturnCode code(ProtocolCapabilities capabilities) {
        return capabilities.reasonCodes() ? mqtt5 : legacy;
    }
}
