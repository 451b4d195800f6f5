package io.mqttgw.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.MqttBytes;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import org.junit.jupiter.api.Test;

/** Checking and building a packet in one pass: what the parity with the two-pass path does not show by name. */
class PacketDecodingTest {
    private final PacketDecoding decoding = new PacketDecoding(1024, 23);

    private MqttMessage decode(byte[] packet, boolean mqtt5, boolean connected) {
        ByteBuf in = Unpooled.wrappedBuffer(packet);
        int header = 2;
        while ((packet[header - 1] & 0x80) != 0) {
            header++;
        }
        try {
            return decoding.decode(in, 0, header, packet.length - header, mqtt5, connected);
        } finally {
            in.release();
        }
    }

    private static Violation refusal(MqttMessage m) {
        assertTrue(m.decoderResult().isFailure(), "refused");
        return assertInstanceOf(InvalidPacketException.class, m.decoderResult().cause()).violation();
    }

    @Test
    void publishPayloadIsARetainedSliceOfTheBytesReceived() {
        byte[] packet = new MqttBytes().string("a/b").u16(7).raw(new byte[] {1, 2, 3}).packet(0x32);
        ByteBuf in = Unpooled.directBuffer().writeBytes(packet);
        MqttPublishMessage m = (MqttPublishMessage) decoding.decode(in, 0, 2, packet.length - 2, false, true);
        assertEquals(2, in.refCnt(), "the payload holds the received buffer");
        in.setByte(packet.length - 1, 9);
        in.release();
        assertEquals(3, m.payload().readableBytes());
        assertEquals(9, m.payload().getByte(2), "a slice of the received bytes, not a copy");
        assertEquals(7, m.variableHeader().packetId());
        m.release();
        assertEquals(0, in.refCnt());
    }

    @Test
    void refusesTheLayoutBeforeTheContentOfAnEarlierField() {
        // ill-formed UTF-8 in the topic, then packet id 0: the layout rule counts
        byte[] packet = new MqttBytes().raw(new byte[] {0, 2, (byte) 0xC0, (byte) 0x80}).u16(0).packet(0x32);
        assertEquals(DisconnectReason.MALFORMED_PACKET, refusal(decode(packet, false, true)).reason());
        assertEquals(Violations.PACKET_ID_ZERO, refusal(decode(packet, false, true)));
    }

    @Test
    void illFormedUtf8IsCountedButNotToldAsARule() {
        byte[] packet = new MqttBytes().raw(new byte[] {0, 2, (byte) 0xED, (byte) 0xA0}).u16(1).packet(0x32);
        Violation v = refusal(decode(packet, false, true));
        assertEquals(DisconnectReason.INVALID_UTF8, v.reason());
        assertFalse(v.told());
    }

    @Test
    void nulInAPublishPropertyCountsAsABadTopic() {
        byte[] packet = new MqttBytes().string("t").u16(1).raw(new byte[] {5, 0x03, 0, 2, 'a', 0}).packet(0x32);
        assertEquals(DisconnectReason.INVALID_TOPIC, refusal(decode(packet, true, true)).reason());
    }

    @Test
    void fieldsPastTheLimitWithTheFixedHeaderAreTooLarge() {
        PacketDecoding small = new PacketDecoding(20, 23);
        // remaining length 19 passes the header check; with the 2-byte fixed header the packet is 21 bytes
        byte[] packet = new MqttBytes().string("topic/of/12").u16(1).raw(new byte[4]).packet(0x32);
        assertEquals(19, packet.length - 2);
        assertNull(small.checkRemainingLength(19));
        ByteBuf in = Unpooled.wrappedBuffer(packet);
        MqttMessage m = small.decode(in, 0, 2, 19, false, true);
        in.release();
        assertEquals(DisconnectReason.PACKET_TOO_LARGE, refusal(m).reason());
    }

    @Test
    void mqtt5PublishCarriesItsProperties() {
        byte[] packet = new MqttBytes().string("t").u16(1)
                .raw(new byte[] {12, 0x02, 0, 0, 0, 9, 0x26, 0, 1, 'k', 0, 1, 'v'}).raw(new byte[] {7}).packet(0x32);
        MqttPublishMessage m = (MqttPublishMessage) decode(packet, true, true);
        MqttProperties p = m.variableHeader().properties();
        assertEquals(9, p.getProperty(MqttProperties.MqttPropertyType.PUBLICATION_EXPIRY_INTERVAL.value()).value());
        assertEquals(1, p.getProperties(MqttProperties.MqttPropertyType.USER_PROPERTY.value()).size());
        assertEquals(1, m.payload().readableBytes());
        m.release();
    }

    @Test
    void unsupportedProtocolIsAnsweredWithItsConnackCode() {
        byte[] packet = new MqttBytes().string("MQTT").u8(6).u8(2).u16(60).string("d").packet(0x10);
        Violation v = refusal(decode(packet, false, false));
        assertEquals(DisconnectReason.UNSUPPORTED_PROTOCOL, v.reason());
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION, v.connack());
    }

    @Test
    void aSecondConnectIsRefusedOnlyWhenItsLayoutIsSound() {
        byte[] sound = new MqttBytes().string("MQTT").u8(4).u8(2).u16(60).string("d").packet(0x10);
        assertEquals(Violations.SECOND_CONNECT, refusal(decode(sound, false, true)));
        byte[] broken = new MqttBytes().string("MQTT").u8(4).u8(3).u16(60).string("d").packet(0x10);
        assertEquals(Violations.RESERVED_CONNECT_FLAG, refusal(decode(broken, false, true)));
        MqttConnectMessage first = (MqttConnectMessage) decode(sound, false, false);
        assertEquals("d", first.payload().clientIdentifier());
    }
}
