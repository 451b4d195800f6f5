package io.mqttgw.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InvalidPacketHandlerTest {
    private static final int MAX_PACKET_SIZE = 64;
    private static final int MAX_CLIENT_ID_LENGTH = 23;

    private EmbeddedChannel ch;

    @BeforeEach
    void channel() {
        ch = new EmbeddedChannel();
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(new MqttPacketDecoder(MAX_PACKET_SIZE, MAX_CLIENT_ID_LENGTH),
                InvalidPacketHandler.INSTANCE);
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private void feed(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        ch.writeInbound(Unpooled.wrappedBuffer(b));
    }

    private void assertClosedWith(DisconnectReason reason) {
        assertFalse(ch.isOpen(), "closed");
        assertEquals(reason, ConnectionContext.of(ch).closeReason());
        assertNull(ch.readInbound(), "the invalid packet is not passed on");
    }

    private static int[] connect(String protocolName, int level, String clientId) {
        ByteArrayOutputStream v = new ByteArrayOutputStream();
        byte[] name = protocolName.getBytes(StandardCharsets.UTF_8);
        v.write(0);
        v.write(name.length);
        v.writeBytes(name);
        v.write(level);
        v.write(0x02); // clean session
        v.write(0);
        v.write(60);
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        v.write(0);
        v.write(id.length);
        v.writeBytes(id);
        byte[] body = v.toByteArray();
        int[] packet = new int[2 + body.length];
        packet[0] = 0x10;
        packet[1] = body.length;
        for (int i = 0; i < body.length; i++) {
            packet[2 + i] = body[i] & 0xFF;
        }
        return packet;
    }

    @Test
    void passesValidPacketsOn() {
        feed(0x30, 0x06, 0x00, 0x03, 'a', '/', 'b', 'x'); // PUBLISH QoS 0 "a/b" payload "x"
        MqttPublishMessage publish = ch.readInbound();
        assertEquals("a/b", publish.variableHeader().topicName());
        publish.release();
        assertTrue(ch.isOpen());
        assertNull(ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesOnAPublishTopicWithWildcards() {
        feed(0x30, 0x06, 0x00, 0x03, 'a', '/', '#', 'x');
        assertClosedWith(DisconnectReason.INVALID_TOPIC);
        assertNull(ch.readOutbound());
    }

    @Test
    void closesOnAPublishTopicThatIsNotUtf8() {
        feed(0x30, 0x05, 0x00, 0x02, 0xC3, 0x28, 'x');
        assertClosedWith(DisconnectReason.INVALID_UTF8);
    }

    @Test
    void closesOnAPublishTopicWithUPlus0000() {
        feed(0x30, 0x06, 0x00, 0x03, 'a', 0x00, 'b', 'x');
        assertFalse(ch.isOpen());
        DisconnectReason reason = ConnectionContext.of(ch).closeReason();
        assertTrue(reason == DisconnectReason.INVALID_UTF8 || reason == DisconnectReason.INVALID_TOPIC,
                "U+0000 is an invalid string or an invalid topic, was " + reason);
    }

    @Test
    void closesOnQos3() {
        feed(0x36, 0x06, 0x00, 0x01, 'a', 0x00, 0x01, 'x');
        assertClosedWith(DisconnectReason.INVALID_FIXED_HEADER);
    }

    @Test
    void closesOnSubscribeWithWrongReservedFlags() {
        feed(0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 'a', 0x00);
        assertClosedWith(DisconnectReason.INVALID_FIXED_HEADER);
    }

    @Test
    void closesOnAPacketLargerThanTheMaximum() {
        int remaining = 200;
        int[] packet = new int[3 + remaining];
        packet[0] = 0x30;
        packet[1] = 0x80 | (remaining & 0x7F);
        packet[2] = remaining >> 7;
        packet[3] = 0x00;
        packet[4] = 0x01;
        packet[5] = 'a';
        for (int i = 6; i < packet.length; i++) {
            packet[i] = 'z';
        }
        feed(packet);
        assertClosedWith(DisconnectReason.PACKET_TOO_LARGE);
    }

    @Test
    void closesOnAPacketWhoseDeclaredLengthExceedsTheMaximumBeforeItArrives() {
        feed(0x30, 0xC8, 0x01, 0x00, 0x01, 'a'); // declares 200 bytes, sends 3
        assertClosedWith(DisconnectReason.PACKET_TOO_LARGE);
    }

    @Test
    void answersAnUnsupportedProtocolLevelWithConnackReturnCode1ThenCloses() {
        feed(connect("MQTT", 7, "c"));

        MqttConnAckMessage connack = assertInstanceOf(MqttConnAckMessage.class, ch.readOutbound());
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION,
                connack.variableHeader().connectReturnCode());
        assertEquals(0x01, connack.variableHeader().connectReturnCode().byteValue());
        assertNull(ch.readOutbound());
        assertClosedWith(DisconnectReason.UNSUPPORTED_PROTOCOL);
    }

    @Test
    void answersARejectedClientIdWithConnackIdentifierRejectedThenCloses() {
        // MQTT 3.1 ("MQIsdp", level 3) limits client ids; the decoder rejects one longer than the maximum
        feed(connect("MQIsdp", 3, "a-client-id-longer-than-23-chars"));

        MqttConnAckMessage connack = assertInstanceOf(MqttConnAckMessage.class, ch.readOutbound());
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                connack.variableHeader().connectReturnCode());
        assertClosedWith(DisconnectReason.CONNECT_REFUSED);
    }

    @Test
    void closesWithoutConnackOnAnUnsupportedLevelDuringASession() {
        ConnectionContext.of(ch).openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL,
                false);
        feed(connect("MQTT", 7, "c"));

        assertNull(ch.readOutbound(), "no CONNACK inside a session");
        assertClosedWith(DisconnectReason.SECOND_CONNECT);
    }

    @Test
    void closesAsMalformedOnOtherDecodingFailures() {
        // PUBACK must have a remaining length of 2; a remaining length of 0 cannot hold a packet id
        MqttMessage invalid = new MqttMessage(
                new io.netty.handler.codec.mqtt.MqttFixedHeader(MqttMessageType.PUBACK, false,
                        io.netty.handler.codec.mqtt.MqttQoS.AT_MOST_ONCE, false, 0),
                null, null, DecoderResult.failure(new io.netty.handler.codec.DecoderException("truncated")));
        ch.writeInbound(invalid);
        assertClosedWith(DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void discardsEverythingAfterAnInvalidPacket() {
        feed(0x36, 0x00, 0xC0, 0x00); // QoS 3 PUBLISH, then a PINGREQ in the same read
        assertClosedWith(DisconnectReason.INVALID_FIXED_HEADER);
    }
}
