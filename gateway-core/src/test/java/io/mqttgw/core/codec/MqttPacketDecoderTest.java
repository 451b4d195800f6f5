package io.mqttgw.core.codec;

import static io.mqttgw.core.testkit.ProtocolFixture.packet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MqttPacketDecoderTest {
    private static final byte[] PINGREQ = {(byte) 0xC0, 0};

    private final EmbeddedChannel ch = new EmbeddedChannel(new MqttPacketDecoder(1024, 23));
    /** Another connection on the same thread (so sharing its event loop's decoder). */
    private final EmbeddedChannel other = new EmbeddedChannel(new MqttPacketDecoder(1024, 23));
    private final Recorder recorder = new Recorder();
    private final ReadCounter counter = new ReadCounter();
    /** A channel whose decoder hands what it passes on to {@link #recorder}, behind {@link #counter}. */
    private final EmbeddedChannel paused = new EmbeddedChannel(counter, new MqttPacketDecoder(1024, 23), recorder);

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
        other.finishAndReleaseAll();
        recorder.release();
        paused.finishAndReleaseAll();
    }

    /** A QoS 0 PUBLISH to topic {@code t} with payload {@code p} (MQTT 3.1.1 layout). */
    private static byte[] publish(char t, char p) {
        return packet(0x30, 0, 1, t, p);
    }

    private static byte[] concat(byte[]... packets) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : packets) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Records what the decoder passes on and how many read completions; may pause reading on a packet. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<MqttMessage> messages = new ArrayList<>();
        int completions;
        boolean pauseOnPacket;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            messages.add((MqttMessage) msg);
            if (pauseOnPacket) {
                ctx.channel().config().setAutoRead(false);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            completions++;
        }

        List<String> topics() {
            List<String> topics = new ArrayList<>();
            for (MqttMessage m : messages) {
                topics.add(((MqttPublishMessage) m).variableHeader().topicName());
            }
            return topics;
        }

        void release() {
            messages.forEach(ReferenceCountUtil::release);
            messages.clear();
        }
    }

    /** Counts the read() requests that reach the socket side of the decoder. */
    private static final class ReadCounter extends ChannelOutboundHandlerAdapter {
        int reads;

        @Override
        public void read(ChannelHandlerContext ctx) {
            reads++;
            ctx.read();
        }
    }

    /**
     * Pauses reading on {@code ch} and answers the read request the channel made when it became active (as
     * Netty's flow-control handler, a request made before the pause is answered by the next packet), so that no
     * request is outstanding.
     */
    private void pauseWithNoReadAsked() {
        paused.config().setAutoRead(false);
        paused.writeInbound(Unpooled.wrappedBuffer(publish('0', '0')));
        assertEquals(List.of("0"), recorder.topics(), "the outstanding request is answered");
        recorder.release();
        recorder.completions = 0;
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
    void refusesAPropertyBlockLongerThanItsPacket() {
        // MQTT 5 CONNECT whose property block claims 20 bytes inside a 12-byte packet: read as it says, it would take
        // the next packet's bytes
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

    @Test
    void passesAPacketSplitOverManyReadsOnceItIsWhole() {
        byte[] publish = packet(0x30, 0, 3, 'a', '/', 'b', 'x', 'y');
        for (int i = 0; i < publish.length - 1; i++) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {publish[i]}));
            assertNull(ch.readInbound(), "nothing before byte " + (i + 1) + " of " + publish.length);
        }
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {publish[publish.length - 1]}));
        MqttPublishMessage p = ch.readInbound();
        assertEquals("a/b", p.variableHeader().topicName());
        assertEquals(2, p.payload().readableBytes());
        p.release();
        assertNull(ch.readInbound());
    }

    @Test
    void passesEveryPacketOfOneReadInOrder() {
        ch.writeInbound(Unpooled.wrappedBuffer(concat(publish('a', '1'), PINGREQ, publish('b', '2'), PINGREQ,
                publish('c', '3'))));
        List<MqttMessageType> types = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        for (MqttMessage m = ch.readInbound(); m != null; m = ch.readInbound()) {
            assertTrue(m.decoderResult().isSuccess(), String.valueOf(m.decoderResult()));
            types.add(m.fixedHeader().messageType());
            if (m instanceof MqttPublishMessage p) {
                topics.add(p.variableHeader().topicName());
            }
            ReferenceCountUtil.release(m);
        }
        assertEquals(List.of(MqttMessageType.PUBLISH, MqttMessageType.PINGREQ, MqttMessageType.PUBLISH,
                MqttMessageType.PINGREQ, MqttMessageType.PUBLISH), types);
        assertEquals(List.of("a", "b", "c"), topics);
    }

    @Test
    void packetsWrittenBackAreEncodedForTheProtocolOfTheConnect() {
        EmbeddedChannel device = new EmbeddedChannel(MqttEncoder.INSTANCE, new MqttPacketDecoder(1024, 23));
        device.writeInbound(Unpooled.wrappedBuffer(
                packet(0x10, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60, 0, 0, 1, 'd')));
        ReferenceCountUtil.release(device.readInbound());
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM, 10));
        device.writeOutbound(MqttMessageBuilders.connAck().returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED)
                .properties(properties).build());
        ByteBuf connack = device.readOutbound();
        // 5.0: flags, reason code, then a property block of 3 bytes and its length; 3.1.1 would be 2 bytes long
        assertEquals(6, connack.getByte(1), "remaining length of a 5.0 CONNACK with receive maximum");
        connack.release();
        device.finishAndReleaseAll();
    }

    @Test
    void packetsAfterAnMqtt5ConnectInTheSameReadAreDecodedAs5() {
        byte[] connect5 = packet(0x10, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60, 0, 0, 1, 'd');
        // QoS 1, topic a, id 7, properties: content type "j", payload "x"; then PUBACK id 7 with reason 0x10
        byte[] publish5 = packet(0x32, 0, 1, 'a', 0, 7, 4, 0x03, 0, 1, 'j', 'x');
        byte[] puback5 = packet(0x40, 0, 7, 0x10, 0);
        ch.writeInbound(Unpooled.wrappedBuffer(concat(connect5, publish5, puback5)));
        MqttConnectMessage c = ch.readInbound();
        assertTrue(c.decoderResult().isSuccess(), String.valueOf(c.decoderResult()));
        MqttPublishMessage p = ch.readInbound();
        assertTrue(p.decoderResult().isSuccess(), String.valueOf(p.decoderResult()));
        assertEquals("j", p.variableHeader().properties().getProperty(MqttProperties.CONTENT_TYPE).value());
        assertEquals(1, p.payload().readableBytes());
        p.release();
        MqttMessage ack = ch.readInbound();
        assertTrue(ack.decoderResult().isSuccess(), String.valueOf(ack.decoderResult()));
        assertEquals(0x10, ((io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader) ack.variableHeader())
                .reasonCode());
    }

    @Test
    void connectionsOnOneThreadKeepTheirOwnProtocolVersion() {
        ch.writeInbound(Unpooled.wrappedBuffer(
                packet(0x10, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60, 0, 0, 1, 'd')));
        other.writeInbound(Unpooled.wrappedBuffer(packet(0x10, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60, 0, 1,
                'e')));
        ReferenceCountUtil.release(ch.readInbound());
        ReferenceCountUtil.release(other.readInbound());
        // the same bytes: a 5.0 PUBLISH with an empty property block, a 3.1.1 PUBLISH whose payload starts at it
        other.writeInbound(Unpooled.wrappedBuffer(packet(0x30, 0, 1, 'a', 0, 'x')));
        ch.writeInbound(Unpooled.wrappedBuffer(packet(0x30, 0, 1, 'a', 0, 'x')));
        MqttPublishMessage p5 = ch.readInbound();
        MqttPublishMessage pOther = other.readInbound();
        assertEquals(1, p5.payload().readableBytes(), "5.0: the property block is not payload");
        assertEquals(2, pOther.payload().readableBytes(), "3.1.1: no property block");
        p5.release();
        pOther.release();
    }

    @Test
    void aPacketTheDecoderRefusesLeavesTheNextConnectionsDecodingIntact() {
        // a topic that is not UTF-8: refused, and the connection stays refusing
        ch.writeInbound(Unpooled.wrappedBuffer(packet(0x30, 0, 1, 0xFF, 'x')));
        MqttMessage refused = ch.readInbound();
        assertTrue(refused.decoderResult().isFailure());
        ch.writeInbound(Unpooled.wrappedBuffer(PINGREQ));
        assertNull(ch.readInbound(), "nothing after a refusal");

        other.writeInbound(Unpooled.wrappedBuffer(publish('a', '1')));
        MqttPublishMessage p = other.readInbound();
        assertTrue(p != null && p.decoderResult().isSuccess(), "another connection on this thread decodes");
        p.release();
    }

    @Test
    void passesOnNothingWhileReadingIsPausedAndNoReadIsAsked() {
        pauseWithNoReadAsked();
        int readsBefore = counter.reads;
        // two whole packets and the start of a third
        paused.writeInbound(Unpooled.wrappedBuffer(concat(publish('a', '1'), publish('b', '2'),
                new byte[] {0x30, 5, 0})));
        assertEquals(List.of(), recorder.messages);
        assertEquals(0, recorder.completions, "no read completion while packets are held back");
        assertEquals(readsBefore, counter.reads, "a paused connection asks for no more bytes");
    }

    @Test
    void passesOnePacketPerReadRequestWhilePausedAndEverythingOnceAutoReadIsBack() {
        pauseWithNoReadAsked();
        paused.writeInbound(Unpooled.wrappedBuffer(concat(publish('a', '1'), publish('b', '2'),
                publish('c', '3'), publish('d', '4'))));
        assertEquals(List.of(), recorder.messages);
        int readsBefore = counter.reads;
        paused.read();
        assertEquals(List.of("a"), recorder.topics());
        paused.read();
        assertEquals(List.of("a", "b"), recorder.topics());
        assertEquals(readsBefore, counter.reads, "requests answered from held packets read no more bytes");
        paused.config().setAutoRead(true);
        assertEquals(List.of("a", "b", "c", "d"), recorder.topics());
        assertTrue(counter.reads > readsBefore, "auto-read on again reads the socket again");
        assertTrue(recorder.completions >= 1, "emptying what was held completes the read");
    }

    @Test
    void aPacketThatPausesReadingStopsTheRestOfItsRead() {
        recorder.pauseOnPacket = true;
        paused.writeInbound(Unpooled.wrappedBuffer(concat(publish('a', '1'), publish('b', '2'),
                publish('c', '3'))));
        assertEquals(List.of("a"), recorder.topics(), "the pause takes effect at the next packet");
        assertEquals(0, recorder.completions);
        paused.read();
        assertEquals(List.of("a", "b"), recorder.topics());
    }

    @Test
    void aReadRequestWithNothingHeldIsAnsweredByTheNextPacketOnly() {
        pauseWithNoReadAsked();
        int readsBefore = counter.reads;
        paused.read();
        assertEquals(readsBefore + 1, counter.reads, "the request goes on to the socket");
        byte[] two = concat(publish('a', '1'), publish('b', '2'));
        // half a packet first: the request is still waiting, so more bytes are asked for
        paused.writeInbound(Unpooled.wrappedBuffer(two, 0, 3));
        assertEquals(List.of(), recorder.messages);
        assertEquals(readsBefore + 2, counter.reads, "a request not yet answered reads on");
        paused.writeInbound(Unpooled.wrappedBuffer(two, 3, two.length - 3));
        assertEquals(List.of("a"), recorder.topics(), "one packet for one request");
        assertEquals(readsBefore + 2, counter.reads, "an answered request reads no more");
    }

    @Test
    void bytesHeldWhilePausedAreReleasedWhenTheChannelCloses() {
        pauseWithNoReadAsked();
        ByteBuf bytes = Unpooled.buffer(16).writeBytes(concat(publish('a', '1'), publish('b', '2')));
        paused.writeInbound(bytes);
        assertEquals(1, bytes.refCnt(), "held");
        paused.close();
        assertEquals(0, bytes.refCnt(), "released on close");
        assertEquals(List.of(), recorder.messages, "held packets are not handled after the connection ended");
    }

    @Test
    void bytesHeldAreReleasedWhenTheHandlerLeaves() {
        ByteBuf bytes = Unpooled.buffer(16).writeBytes(publish('a', '1')).writeByte(0x30);
        ch.writeInbound(bytes);
        ReferenceCountUtil.release(ch.readInbound());
        assertTrue(bytes.refCnt() > 0, "half a packet held");
        ch.pipeline().remove(MqttPacketDecoder.class);
        assertEquals(0, bytes.refCnt());
    }
}
