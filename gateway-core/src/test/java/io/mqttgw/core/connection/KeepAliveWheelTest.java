package io.mqttgw.core.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.pipeline.EstablishedSessionHandler;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Keepalive through the event loop's wheel, with the established-session handler feeding it packets. The wheel
 * ticks every 250 ms, so a close comes up to one tick after the one and a half keepalive periods.
 */
class KeepAliveWheelTest {
    private static final EstablishedSessionHandler SESSION = ProtocolFixture.defaultSessionHandler();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private EmbeddedChannel ch;

    @BeforeEach
    void channel() {
        ch = session(10);
    }

    /** An established session with a keepalive of {@code seconds}, watched by its loop's wheel. */
    private EmbeddedChannel session(int seconds) {
        EmbeddedChannel channel = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-" + channels.size(), ProtocolFixture.route("dev-" + channels.size(), 1), null,
                TopicAcl.ALLOW_ALL, false);
        channel.attr(ConnectionContext.KEY).set(context);
        channel.pipeline().addLast(SESSION);
        KeepAliveWheel.watch(channel, seconds);
        channels.add(channel);
        return channel;
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private void advance(long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    private void packet() {
        ch.writeInbound(MqttMessage.PINGREQ);
        assertEquals(MqttMessageType.PINGRESP, ((MqttMessage) ch.readOutbound()).fixedHeader().messageType());
    }

    @Test
    void closesAfterOneAndAHalfKeepAlivesWithoutAPacket() {
        advance(14_900);
        assertTrue(ch.isOpen(), "within 1.5 x 10 s");

        advance(500); // the wheel's tick (250 ms) is its granularity
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

        advance(1_400);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void aDeviceThatKeepsSendingStaysConnectedPastManyTurnsOfTheWheel() {
        // 300 s = more than one turn of the wheel (256 s), a packet every 9 s
        for (int s = 0; s < 300; s += 9) {
            advance(9_000);
            assertTrue(ch.isOpen(), "open at " + (s + 9) + " s");
            packet();
        }
        advance(15_100);
        assertFalse(ch.isOpen(), "closed once it stops sending");
    }

    @Test
    void aKeepAliveLongerThanATurnOfTheWheelIsKeptToo() {
        ch.close();
        ch = session(600); // 900 s timeout, 3.5 turns
        advance(899_000);
        assertTrue(ch.isOpen());
        advance(1_300);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void silenceWhileTheGatewayPausedReadingDoesNotClose() {
        ch.config().setAutoRead(false);
        advance(40_000);
        assertTrue(ch.isOpen(), "the device's packets wait unread");
        ch.config().setAutoRead(true);
        advance(16_000);
        assertFalse(ch.isOpen(), "silent once reading resumed");
    }

    @Test
    void aClosedChannelLeavesTheWheel() {
        assertTrue(KeepAliveWheel.watched(ch));
        ch.close();
        assertFalse(KeepAliveWheel.watched(ch), "unlinked at once, not held until its slot comes up");
    }

    @Test
    void noCheckWithAKeepAliveOfZero() {
        ch.close();
        ch = session(0);
        assertFalse(KeepAliveWheel.watched(ch));
        advance(1_000_000);
        assertTrue(ch.isOpen());
    }

    @Test
    void anEarlierReasonWins() {
        DeviceDisconnector.close(ch, DisconnectReason.SHUTDOWN);
        advance(20_000);
        assertEquals(DisconnectReason.SHUTDOWN, ConnectionContext.of(ch).closeReason());
        assertNull(ch.readOutbound());
    }
}
