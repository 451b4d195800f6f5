package io.mqttgw.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MqttPacketDecoderTest {
    private final EmbeddedChannel ch = new EmbeddedChannel(new MqttPacketDecoder(1024, 23));

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    @Test
    void passesValidPacketsSplitAcrossReadsWhole() {
        byte[] connect = {0x10, 13, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 60, 0, 1, 'd'};
        byte[] publish = {0x30, 6, 0, 3, 'a', '/', 'b', 'x'};
        ByteBuf both = Unpooled.wrappedBuffer(connect, publish);
        ch.writeInbound(both.readRetainedSlice(9));
        assertNull(ch.readInbound());
        ch.writeInbound(both.readRetainedSlice(both.readableBytes()));
        both.release();
        MqttConnectMessage c = ch.readInbound();
        assertTrue(c.decoderResult().isSuccess());
        MqttPublishMessage p = ch.readInbound();
        assertEquals("a/b", p.variableHeader().topicName());
        assertEquals(1, p.payload().readableBytes());
        p.release();
    }

    @Test
    void refusesAFrameTheDecoderDidNotReadToItsEnd() {
        // MQTT 5 CONNECT (left to the decoder) whose property block claims 20 bytes inside a 12-byte packet: the
        // decoder would wait for the next packet's bytes
        byte[] connect = {0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 5, 2, 0, 60, 20, 0};
        ch.writeInbound(Unpooled.wrappedBuffer(connect));
        MqttMessage m = ch.readInbound();
        assertTrue(m.decoderResult().isFailure());
        InvalidPacketException cause = assertInstanceOf(InvalidPacketException.class, m.decoderResult().cause());
        assertEquals(DisconnectReason.MALFORMED_PACKET, cause.violation().reason());
        // everything after a refusal is discarded
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xC0, 0}));
        assertNull(ch.readInbound());
    }

    @Test
    void refusesATooLargePacketOnItsHeaderAlone() {
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x30, (byte) 0x81, 0x08}));
        MqttMessage m = ch.readInbound();
        InvalidPacketException cause = assertInstanceOf(InvalidPacketException.class, m.decoderResult().cause());
        assertEquals(DisconnectReason.PACKET_TOO_LARGE, cause.violation().reason());
    }

    @Test
    void pingAfterATruncatedPublishIsNotReadAsItsTopic() {
        byte[] input = {0x30, 3, 0, 9, 'a', (byte) 0xC0, 0, (byte) 0xC0, 0, (byte) 0xC0, 0, (byte) 0xC0, 0};
        ch.writeInbound(Unpooled.wrappedBuffer(input));
        MqttMessage m = ch.readInbound();
        InvalidPacketException cause = assertInstanceOf(InvalidPacketException.class, m.decoderResult().cause());
        assertEquals(DisconnectReason.MALFORMED_PACKET, cause.violation().reason());
        Object next = ch.readInbound();
        ReferenceCountUtil.release(next);
        assertNull(next, "no PINGREQ decoded after the refusal");
    }

    @Test
    void pingreqPassesThrough() {
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xC0, 0}));
        MqttMessage m = ch.readInbound();
        assertEquals(MqttMessageType.PINGREQ, m.fixedHeader().messageType());
    }
}
