package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PingRequestHandlerTest {
    private final EmbeddedChannel ch = new EmbeddedChannel();

    @BeforeEach
    void channel() {
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(ProtocolFixture.defaultSessionHandler());
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    @Test
    void answersPingreqWithPingrespAndConsumesIt() {
        ch.writeInbound(MqttMessage.PINGREQ);

        MqttMessage answer = ch.readOutbound();
        assertEquals(MqttMessageType.PINGRESP, answer.fixedHeader().messageType());
        assertNull(ch.readOutbound());
        assertNull(ch.readInbound(), "PINGREQ goes no further");
        assertTrue(ch.isOpen());
    }

    @Test
    void answersEveryPingreq() {
        for (int i = 0; i < 3; i++) {
            ch.writeInbound(MqttMessage.PINGREQ);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(MqttMessageType.PINGRESP, ((MqttMessage) ch.readOutbound()).fixedHeader().messageType());
        }
        assertNull(ch.readOutbound());
    }

}
