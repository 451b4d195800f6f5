package io.mqttgw.core.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.pipeline.OutboundPacketHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The writability watch, through the shared pipeline entry that calls it ({@link OutboundPacketHandler}). */
class WritabilityWatchTest {
    private final GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
    /** One entry for every channel, as the initializer shares it. */
    private final OutboundPacketHandler outbound = new OutboundPacketHandler(new WritabilityWatch(metrics, 2000, 64));
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final EmbeddedChannel ch = channel();

    private EmbeddedChannel channel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        channel.pipeline().addLast(outbound);
        channels.add(channel);
        return channel;
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @Test
    void unwritableChannelIsNotReadAndIsClosedAfterTheStallTimeout() {
        ch.write(Unpooled.wrappedBuffer(new byte[20]));
        assertFalse(ch.isWritable());
        assertFalse(ch.config().isAutoRead(), "not read while unwritable");
        assertEquals(1, metrics.unwritableChannels());
        ch.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isActive());
        ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isActive());
        assertEquals(DisconnectReason.SLOW_CONSUMER, ConnectionContext.of(ch).closeReason());
        assertEquals(0, metrics.unwritableChannels());
    }

    @Test
    void channelThatDrainsInTimeResumesReadingAndStaysOpen() {
        ConnectionContext.of(ch).openSession("dev", null, null, TopicAcl.ALLOW_ALL, false);
        ch.write(Unpooled.wrappedBuffer(new byte[20]));
        assertFalse(ch.config().isAutoRead());
        ch.flush();
        ch.releaseOutbound();
        assertTrue(ch.isWritable());
        assertTrue(ch.config().isAutoRead(), "read again once writable");
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isActive());
        assertEquals(0, metrics.unwritableChannels());
    }

    @Test
    void writesPastTheOutboundBoundWhileUnwritableCloseAtOnce() {
        // one large packet to a writable channel is fine
        ch.write(Unpooled.wrappedBuffer(new byte[100]));
        assertTrue(ch.isActive());
        ch.write(Unpooled.wrappedBuffer(new byte[2]));
        assertFalse(ch.isActive());
        assertEquals(DisconnectReason.SLOW_CONSUMER, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void stallStateLivesInTheConnectionNotInAHandler() {
        EmbeddedChannel other = channel();
        ConnectionContext.of(ch).openSession("dev-1", null, null, TopicAcl.ALLOW_ALL, false);
        assertSame(ch.pipeline().get(OutboundPacketHandler.class), other.pipeline().get(OutboundPacketHandler.class));

        ch.write(Unpooled.wrappedBuffer(new byte[20]));
        assertFalse(ch.config().isAutoRead());
        assertTrue(other.config().isAutoRead(), "the other channel's reading is its own");
        assertNull(ConnectionContext.of(other).writeStall(), "no stall timer for a writable channel");

        ch.advanceTimeBy(1500, TimeUnit.MILLISECONDS);
        other.write(Unpooled.wrappedBuffer(new byte[20]));
        assertEquals(2, metrics.unwritableChannels());

        // the first channel drains: its stall ends, the other's goes on
        ch.flush();
        ch.releaseOutbound();
        assertTrue(ch.config().isAutoRead());
        assertNull(ConnectionContext.of(ch).writeStall());
        assertFalse(other.config().isAutoRead());
        assertEquals(1, metrics.unwritableChannels());

        // each timer runs from its own channel's stall
        ch.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        other.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
        other.runScheduledPendingTasks();
        assertTrue(ch.isActive());
        assertTrue(other.isActive());
        other.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        other.runScheduledPendingTasks();
        assertFalse(other.isActive());
        assertEquals(DisconnectReason.SLOW_CONSUMER, ConnectionContext.of(other).closeReason());
        assertTrue(ch.isActive());
        assertEquals(0, metrics.unwritableChannels());
    }

    @Test
    void aStalledChannelClosedForAnotherReasonEndsItsStall() {
        ch.write(Unpooled.wrappedBuffer(new byte[20]));
        assertEquals(1, metrics.unwritableChannels());
        DeviceDisconnector.close(ch, DisconnectReason.KEEPALIVE_TIMEOUT);
        assertEquals(0, metrics.unwritableChannels());
        assertNull(ConnectionContext.of(ch).writeStall(), "the timer goes with the stall");
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void drainingBeforeTheSessionOpensLeavesReadingToTheConnectPhase() {
        // the CONNECT phase pauses reading while the authenticator decides; a drain must not resume it
        ch.write(Unpooled.wrappedBuffer(new byte[20]));
        ch.flush();
        ch.releaseOutbound();
        assertTrue(ch.isWritable());
        assertFalse(ch.config().isAutoRead());
        assertEquals(0, metrics.unwritableChannels());
    }

    @Test
    void encodesThePacketsItWrites() {
        ch.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGRESP, false, MqttQoS.AT_MOST_ONCE,
                false, 0)));
        ByteBuf wire = ch.readOutbound();
        try {
            assertArrayEquals(new byte[] {(byte) 0xD0, 0}, ByteBufUtil.getBytes(wire));
        } finally {
            wire.release();
        }
    }
}
