package io.mqttgw.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KeepAliveHandlerTest {
    private EmbeddedChannel ch;

    @BeforeEach
    void channel() {
        ch = new EmbeddedChannel();
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(new KeepAliveHandler(10));
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private void advance(long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    private void packet() {
        ch.writeInbound(MqttMessage.PINGREQ);
        assertSame(MqttMessage.PINGREQ, ch.readInbound(), "packets pass through");
    }

    @Test
    void closesAfterOneAndAHalfKeepAlivesWithoutAPacket() {
        advance(14_900);
        assertTrue(ch.isOpen(), "within 1.5 x 10 s");

        advance(200);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void doesNotCloseAtTheKeepAliveItself() {
        advance(10_500);
        assertTrue(ch.isOpen(), "MQTT allows one and a half keepalive periods");
    }

    @Test
    void aPacketRestartsTheTimer() {
        advance(10_000);
        packet();
        advance(10_000);
        assertTrue(ch.isOpen(), "20 s after the start, 10 s after the packet");
        packet();
        advance(14_000);
        assertTrue(ch.isOpen());

        advance(1_100);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void anEarlierReasonWins() {
        DeviceDisconnector.close(ch, DisconnectReason.SHUTDOWN);
        advance(20_000);
        assertEquals(DisconnectReason.SHUTDOWN, ConnectionContext.of(ch).closeReason());
        assertNull(ch.readOutbound());
    }
}
