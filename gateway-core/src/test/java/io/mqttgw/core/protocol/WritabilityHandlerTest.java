package io.mqttgw.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WritabilityHandlerTest {
    private final GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
    private final EmbeddedChannel ch = new EmbeddedChannel();

    WritabilityHandlerTest() {
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        ch.pipeline().addLast(new WritabilityHandler(metrics, 2000, 64));
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
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
        ConnectionContext.of(ch).openSession("dev", null, null, io.mqttgw.core.acl.TopicAcl.ALLOW_ALL, false);
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
}
