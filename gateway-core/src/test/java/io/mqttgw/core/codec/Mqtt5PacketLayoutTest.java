package io.mqttgw.core.codec;

import static io.mqttgw.core.testkit.ProtocolFixture.packet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The MQTT 5.0 packet layouts {@link MqttPacketDecoder} checks as it decodes a packet. */
class Mqtt5PacketLayoutTest {
    private final EmbeddedChannel ch = new EmbeddedChannel(new MqttPacketDecoder(1024, 23));

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    /** A level-5 CONNECT of client id "d" with {@code properties} (a whole property block, its length first). */
    private static byte[] connect5(int... properties) {
        int[] head = {0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60};
        int[] tail = {0, 1, 'd'};
        int[] body = new int[head.length + properties.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(properties, 0, body, head.length, properties.length);
        System.arraycopy(tail, 0, body, head.length + properties.length, tail.length);
        return packet(0x10, body);
    }

    private MqttMessage read(byte[] bytes) {
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        return ch.readInbound();
    }

    /** Opens the channel as MQTT 5.0 with a CONNECT without properties. */
    private void connected() {
        MqttConnectMessage c = (MqttConnectMessage) read(connect5(0));
        assertTrue(c.decoderResult().isSuccess(), String.valueOf(c.decoderResult()));
    }

    private void assertRefused(byte[] bytes, DisconnectReason reason) {
        MqttMessage m = read(bytes);
        InvalidPacketException cause = assertInstanceOf(InvalidPacketException.class, m.decoderResult().cause(),
                String.valueOf(m.decoderResult()));
        assertEquals(reason, cause.violation().reason(), cause.getMessage());
        // nothing after a refusal reaches the decoder
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xC0, 0}));
        assertNull(ch.readInbound());
    }

    @Test
    void connectPropertiesReachTheDecoder() {
        // receive maximum 10, maximum packet size 2000, a user property a=b
        MqttConnectMessage c = (MqttConnectMessage) read(connect5(15, 0x21, 0, 10, 0x27, 0, 0, 0x07, 0xD0,
                0x26, 0, 1, 'a', 0, 1, 'b'));
        assertTrue(c.decoderResult().isSuccess(), String.valueOf(c.decoderResult()));
        assertEquals(10, c.variableHeader().properties().getProperty(MqttProperties.RECEIVE_MAXIMUM).value());
        assertEquals(2000, c.variableHeader().properties().getProperty(MqttProperties.MAXIMUM_PACKET_SIZE).value());
    }

    @Test
    void connectWithPasswordButNoUserNameIsValidIn5() {
        int[] body = {0, 4, 'M', 'Q', 'T', 'T', 5, 0x42, 0, 60, 0, 0, 1, 'd', 0, 1, 'p'};
        MqttConnectMessage c = (MqttConnectMessage) read(packet(0x10, body));
        assertTrue(c.decoderResult().isSuccess(), String.valueOf(c.decoderResult()));
    }

    @Test
    void connectWithWillPropertiesPasses() {
        // will flag, will properties: content type "t", will delay 5
        int[] body = {0, 4, 'M', 'Q', 'T', 'T', 5, 0x06, 0, 60, 0, 0, 1, 'd',
                9, 0x03, 0, 1, 't', 0x18, 0, 0, 0, 5, 0, 1, 'w', 0, 1, 'x'};
        MqttConnectMessage c = (MqttConnectMessage) read(packet(0x10, body));
        assertTrue(c.decoderResult().isSuccess(), String.valueOf(c.decoderResult()));
        assertEquals("t", c.payload().willProperties().getProperty(MqttProperties.CONTENT_TYPE).value());
    }

    @Test
    void connectPropertyBlockPastThePacketIsMalformed() {
        assertRefused(connect5(20, 0x21, 0, 10), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void propertyRunningPastItsBlockIsMalformed() {
        // block of 2 bytes holding a receive maximum that needs 3
        assertRefused(connect5(2, 0x21, 0, 10), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void unknownPropertyIsMalformed() {
        assertRefused(connect5(2, 0x04, 0), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void repeatedPropertyIsAProtocolError() {
        assertRefused(connect5(6, 0x21, 0, 10, 0x21, 0, 11), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void propertyOfAnotherPacketTypeIsAProtocolError() {
        // topic alias (a PUBLISH property) in CONNECT
        assertRefused(connect5(3, 0x23, 0, 1), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void receiveMaximumZeroIsAProtocolError() {
        assertRefused(connect5(3, 0x21, 0, 0), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void requestProblemInformationOtherThanZeroOrOneIsAProtocolError() {
        assertRefused(connect5(2, 0x17, 2), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void publishWithPropertiesReachesTheDecoder() {
        connected();
        // QoS 1, topic a/b, id 7, properties: content type "json", then payload "x"
        MqttPublishMessage p = (MqttPublishMessage) read(packet(0x32, 0, 3, 'a', '/', 'b', 0, 7,
                7, 0x03, 0, 4, 'j', 's', 'o', 'n', 'x'));
        assertTrue(p.decoderResult().isSuccess(), String.valueOf(p.decoderResult()));
        assertEquals("json", p.variableHeader().properties().getProperty(MqttProperties.CONTENT_TYPE).value());
        assertEquals(1, p.payload().readableBytes());
        p.release();
    }

    @Test
    void publishWithASubscriptionIdentifierIsAProtocolError() {
        connected();
        assertRefused(packet(0x30, 0, 1, 'a', 2, 0x0B, 1, 'x'), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void publishWithAnEmptyTopicNeedsATopicAlias() {
        connected();
        MqttPublishMessage aliased = (MqttPublishMessage) read(packet(0x30, 0, 0, 3, 0x23, 0, 1, 'x'));
        assertTrue(aliased.decoderResult().isSuccess(), String.valueOf(aliased.decoderResult()));
        aliased.release();
        assertRefused(packet(0x30, 0, 0, 0, 'x'), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void topicAliasZeroIsTopicAliasInvalid() {
        connected();
        assertRefused(packet(0x30, 0, 1, 'a', 3, 0x23, 0, 0, 'x'), DisconnectReason.TOPIC_ALIAS_INVALID);
    }

    @Test
    void pubackWithReasonCodeAndPropertiesReachesTheDecoder() {
        connected();
        // PUBACK id 5, reason 0x10 (no matching subscribers), reason string "r"
        MqttMessage ack = read(packet(0x40, 0, 5, 0x10, 4, 0x1F, 0, 1, 'r'));
        assertTrue(ack.decoderResult().isSuccess(), String.valueOf(ack.decoderResult()));
        MqttPubReplyMessageVariableHeader h = (MqttPubReplyMessageVariableHeader) ack.variableHeader();
        assertEquals(5, h.messageId());
        assertEquals(0x10, h.reasonCode());
        MqttMessage shortAck = read(packet(0x50, 0, 6, 0x80));
        assertTrue(shortAck.decoderResult().isSuccess(), "PUBREC with a reason code alone");
    }

    @Test
    void pubackWithAReasonCodeItDoesNotDefineIsMalformed() {
        connected();
        assertRefused(packet(0x40, 0, 5, 0x92), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void pubrelWithBytesAfterItsPropertiesIsMalformed() {
        connected();
        assertRefused(packet(0x62, 0, 5, 0x00, 0, 0x00), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeOptionBitsAreChecked() {
        connected();
        MqttMessage ok = read(packet(0x82, 0, 1, 2, 0x0B, 3, 0, 1, 'a', 0x2D));
        assertTrue(ok.decoderResult().isSuccess(), "QoS 1, no local, retain as published, retain handling 2, "
                + "subscription identifier 3: " + ok.decoderResult());
    }

    @Test
    void subscribeWithRetainHandling3IsMalformed() {
        connected();
        assertRefused(packet(0x82, 0, 1, 0, 0, 1, 'a', 0x31), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeWithReservedOptionBitsIsMalformed() {
        connected();
        assertRefused(packet(0x82, 0, 1, 0, 0, 1, 'a', 0x41), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeWithQos3IsMalformed() {
        connected();
        assertRefused(packet(0x82, 0, 1, 0, 0, 1, 'a', 0x03), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscriptionIdentifierZeroIsAProtocolError() {
        connected();
        assertRefused(packet(0x82, 0, 1, 2, 0x0B, 0, 0, 1, 'a', 0x01), DisconnectReason.PROTOCOL_VIOLATION);
    }

    @Test
    void unsubscribeWithPropertiesPasses() {
        connected();
        MqttMessage m = read(packet(0xA2, 0, 1, 0, 0, 1, 'a'));
        assertTrue(m.decoderResult().isSuccess(), String.valueOf(m.decoderResult()));
        ReferenceCountUtil.release(m);
    }

    @Test
    void disconnectWithReasonAndSessionExpiryReachesTheDecoder() {
        connected();
        MqttMessage d = read(packet(0xE0, 0x04, 5, 0x11, 0, 0, 0, 30));
        assertTrue(d.decoderResult().isSuccess(), String.valueOf(d.decoderResult()));
        MqttReasonCodeAndPropertiesVariableHeader h = (MqttReasonCodeAndPropertiesVariableHeader) d.variableHeader();
        assertEquals(0x04, h.reasonCode());
        assertEquals(30, h.properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL).value());
    }

    @Test
    void disconnectWithAnUndefinedReasonCodeIsMalformed() {
        connected();
        assertRefused(packet(0xE0, 0x01), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void authIsAPacketOf5Only() {
        assertRefused(packet(0xF0), DisconnectReason.INVALID_FIXED_HEADER);
    }

    @Test
    void authPassesTheFramerIn5() {
        connected();
        MqttMessage auth = read(packet(0xF0, 0x18, 0));
        assertTrue(auth.decoderResult().isSuccess(), String.valueOf(auth.decoderResult()));
        assertEquals(MqttMessageType.AUTH, auth.fixedHeader().messageType());
    }

    @Test
    void packetsOnlyAServerSendsAreAProtocolError() {
        connected();
        assertRefused(packet(0x90, 0, 1, 0, 0), DisconnectReason.PROTOCOL_VIOLATION);
    }
}
