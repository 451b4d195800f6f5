package io.mqttgw.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PingRequestHandlerTest {
    private final EmbeddedChannel ch = new EmbeddedChannel(PingRequestHandler.INSTANCE);

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

    @Test
    void passesOtherPacketsOnUntouched() {
        MqttPublishMessage publish = MqttMessageBuilders.publish().topicName("a").qos(MqttQoS.AT_MOST_ONCE)
                .payload(Unpooled.copiedBuffer(new byte[] {1})).build();
        ch.writeInbound(publish, MqttMessage.DISCONNECT);

        MqttPublishMessage passed = ch.readInbound();
        assertSame(publish, passed);
        assertEquals(1, passed.refCnt(), "not released by the ping handler");
        passed.release();
        assertSame(MqttMessage.DISCONNECT, ch.readInbound());
        assertNull(ch.readOutbound());
    }

    @Test
    void isSharable() {
        assertTrue(PingRequestHandler.INSTANCE.isSharable());
    }
}
