package io.mqttgw.core.mqtt.publish;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.send5;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static io.mqttgw.core.testkit.ProtocolFixture.written5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink whose bound is full is backpressure, not a failure: the connection holds the refused message, stops reading
 * and sends it again when the sink has room, in the device pipeline the gateway assembles.
 */
class UplinkHoldTest {
    @TempDir
    Path dir;
    private ProtocolFixture f;
    private EmbeddedChannel ch;
    private boolean mqtt5;

    @AfterEach
    void finish() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    private void connect(int keepAliveSeconds, boolean version5) {
        f = ProtocolFixture.builder(dir).allowing().build();
        ch = f.deviceChannel();
        mqtt5 = version5;
        MqttMessageBuilders.ConnectBuilder connect = MqttMessageBuilders.connect().clientId("dev-1")
                .cleanSession(true).keepAlive(keepAliveSeconds);
        if (version5) {
            connect.protocolVersion(MqttVersion.MQTT_5);
        }
        send(ch, connect.build());
        List<MqttMessage> out = version5 ? written5(ch) : written(ch);
        assertTrue(out.get(0) instanceof MqttConnAckMessage, "connected: " + out);
        release(out);
    }

    private void publish(MqttQoS qos, int packetId) {
        MqttPublishMessage p = MqttMessageBuilders.publish().topicName("up/" + packetId).qos(qos)
                .messageId(packetId).payload(Unpooled.copiedBuffer("m" + packetId, StandardCharsets.UTF_8)).build();
        if (mqtt5) {
            send5(ch, p);
        } else {
            send(ch, p);
        }
    }

    /** Acknowledgements written so far, as "TYPE id" (and " reason" when the packet carries one). */
    private List<String> acks() {
        List<MqttMessage> out = mqtt5 ? written5(ch) : written(ch);
        List<String> s = new ArrayList<>();
        for (MqttMessage m : out) {
            String line = m.fixedHeader().messageType() + " "
                    + ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
            if (m.variableHeader() instanceof MqttPubReplyMessageVariableHeader r && r.reasonCode() != 0) {
                line += " " + Integer.toHexString(r.reasonCode() & 0xFF);
            }
            s.add(line);
        }
        release(out);
        return s;
    }

    private boolean paused() {
        return !ch.config().isAutoRead();
    }

    private void completeNext(String topic) {
        ProtocolFixture.ManualSink.Pending p = f.sink.next();
        assertEquals(topic, p.message().topic());
        p.done().complete(null);
        ch.runPendingTasks();
    }

    @Test
    void holdsAMessageRefusedForCapacityPausesReadingAndSendsItAgainWhenTheSinkHasRoom() {
        connect(60, false);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        assertTrue(ch.isOpen(), "a full sink does not close the connection");
        assertTrue(paused());
        assertEquals(1, f.metrics.pausedChannels());
        assertEquals(1, f.sink.roomWaiters());
        assertEquals(List.of(), acks(), "no PUBACK while Kafka has not taken it");
        assertEquals(1.0, f.metrics.uplinkHeldCount());

        f.sink.makeRoom();
        ch.runPendingTasks();
        assertEquals(0, f.sink.roomWaiters());
        completeNext("up/1");
        assertEquals(List.of("PUBACK 1"), acks());
        assertFalse(paused(), "reading resumes once the held message is taken and acknowledged");
        assertEquals(0, f.metrics.pausedChannels());
        assertEquals(0.0, f.counter("mqttgw.uplink.refused"));
    }

    @Test
    void laterMessagesWaitBehindTheHeldOneAndAreAcknowledgedInOrder() {
        connect(60, false);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        publish(MqttQoS.AT_LEAST_ONCE, 2);
        publish(MqttQoS.EXACTLY_ONCE, 3);
        assertEquals(1, f.sink.refusedForCapacity(), "nothing goes ahead of the held message");
        f.sink.makeRoom();
        ch.runPendingTasks();
        assertEquals(3, f.sink.size(), "all handed over, in the order sent");
        ProtocolFixture.ManualSink.Pending first = f.sink.next();
        assertEquals("up/1", first.message().topic());
        completeNext("up/2");
        completeNext("up/3");
        assertEquals(List.of(), acks(), "acknowledgements keep the order of the PUBLISHes");
        first.done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBACK 1", "PUBACK 2", "PUBREC 3"), acks());
        assertFalse(paused());
    }

    @Test
    void aWokenMessageRefusedAgainWaitsAgain() {
        connect(60, false);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        f.sink.makeRoom();
        f.sink.fill();
        ch.runPendingTasks();
        assertEquals(2, f.sink.refusedForCapacity());
        assertEquals(1, f.sink.roomWaiters(), "back in the queue");
        assertTrue(ch.isOpen());
        assertTrue(paused());
        f.sink.makeRoom();
        ch.runPendingTasks();
        completeNext("up/1");
        assertEquals(List.of("PUBACK 1"), acks());
        assertFalse(paused());
    }

    @Test
    void anMqtt5ConnectionWaitsTooInsteadOfAnswering0x97() {
        connect(60, true);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        publish(MqttQoS.EXACTLY_ONCE, 2);
        assertEquals(List.of(), acks(), "no quota exceeded: waiting loses nothing");
        assertTrue(paused());
        f.sink.makeRoom();
        ch.runPendingTasks();
        completeNext("up/1");
        completeNext("up/2");
        assertEquals(List.of("PUBACK 1", "PUBREC 2"), acks());
        assertEquals(0.0, f.metrics.publishesRefused("quota_exceeded"));
        assertFalse(paused());
    }

    @Test
    void aConnectionClosedWhileHoldingReleasesItsMessagesUnacknowledged() {
        connect(60, false);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        publish(MqttQoS.AT_LEAST_ONCE, 2);
        ch.close();
        ch.runPendingTasks();
        assertEquals(0, f.sink.roomWaiters(), "the sink keeps no closed connection");
        assertEquals(0, f.metrics.pausedChannels());
        // the held one is counted; the second was never read (its bytes waited in the decoder while paused)
        assertEquals(1.0, f.counter("mqttgw.uplink.refused"), "counted as not delivered");
        f.sink.makeRoom();
        ch.runPendingTasks();
        assertEquals(0, f.sink.size(), "nothing of a closed connection goes to the sink");
    }

    @Test
    void aQos0MessageRefusedForCapacityIsDroppedAndCounted() {
        connect(60, false);
        f.sink.fill();
        publish(MqttQoS.AT_MOST_ONCE, 0);
        assertFalse(paused());
        assertEquals(0, f.sink.roomWaiters());
        assertEquals(1.0, f.counter("mqttgw.uplink.refused"));
        assertTrue(ch.isOpen());
    }

    @Test
    void aRefusalThatIsAFailureStillClosesAThreeOneOneConnection() {
        f = ProtocolFixture.builder(dir).allowing()
                .sinkAnswers(m -> CompletableFuture.failedFuture(new UplinkRejectedException("kafka: closed")))
                .build();
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).keepAlive(60).build());
        release(written(ch));
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SINK_FAILED, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void aConnectionPausedByAFullSinkIsNotClosedForTheSilenceItCausesItself() {
        connect(1, false);
        f.sink.fill();
        publish(MqttQoS.AT_LEAST_ONCE, 1);
        for (int i = 0; i < 20; i++) {
            ch.advanceTimeBy(500, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
        assertTrue(ch.isOpen(), "10 s paused with a keepalive of 1 s");
        f.sink.makeRoom();
        ch.runPendingTasks();
        completeNext("up/1");
        assertEquals(List.of("PUBACK 1"), acks());
        assertFalse(paused());
        // reading again: the device's own silence counts once more
        for (int i = 0; i < 8; i++) {
            ch.advanceTimeBy(500, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.KEEPALIVE_TIMEOUT, ConnectionContext.of(ch).closeReason());
    }
}
