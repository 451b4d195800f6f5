package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import org.junit.jupiter.api.Test;

class MqttReasonsTest {

    @Test
    void namesKnownCodesAndFallsBackToHexForUnknownOnes() {
        assertEquals("puback_quota_exceeded", MqttReasons.puback((byte) 0x97));
        assertEquals("puback_0xa0", MqttReasons.puback((byte) 0xA0));
        assertEquals("disconnect_session_taken_over", MqttReasons.disconnect((byte) 0x8E));
        assertEquals("disconnect_0x03", MqttReasons.disconnect((byte) 0x03));
        assertEquals("connack_refused_bad_user_name_or_password",
                MqttReasons.connack(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD));
    }
}
