package io.mqttgw.core.mqtt.publish;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.ProtocolFixture.ManualSink;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UplinkPublishHandlerTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);
    private ManualSink sink = new ManualSink();
    private EmbeddedChannel ch;

    @BeforeEach
    void openSession() {
        channel(32);
    }

    private void channel(int maxInflight) {
        channel(maxInflight, TopicAcl.ALLOW_ALL, true);
    }

    private void channel(int maxInflight, TopicAcl acl, boolean disconnectOnViolation) {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, acl, false);
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(ProtocolFixture.sessionHandler(
                new UplinkPublishHandler(sink, metrics, maxInflight, disconnectOnViolation)));
    }

    /** The session again, over a sink that answers every message at once with {@code answers}. */
    private void refusingSink(java.util.function.Function<io.mqttgw.core.spi.UplinkMessage,
            java.util.concurrent.CompletionStage<Void>> answers) {
        sink = new ManualSink(answers);
        channel(32);
    }

    private static final TopicAcl UP_ONLY = new TopicAcl(java.util.List.of("up/1", "up/3"), java.util.List.of());

    @Test
    void closesOnAPublishOutsideTheAclWhenTheRuleSaysDisconnect() {
        channel(32, UP_ONLY, true);
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 2));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.NOT_AUTHORIZED, ConnectionContext.of(ch).closeReason());
        assertEquals(0, sink.size(), "nothing outside the ACL reaches the sink");
        assertEquals(1.0, metrics.aclDenials(true));
    }

    @Test
    void acknowledgesInOrderAndDropsAPublishOutsideTheAclWhenTheRuleSaysIgnore() {
        channel(32, UP_ONLY, false);
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 2));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 3));
        assertEquals(2, sink.size(), "only up/1 and up/3 reach the sink");
        assertEquals(java.util.List.of(), acks(), "up/2's PUBACK waits behind up/1's");
        sink.next().done().complete(null);
        assertEquals(java.util.List.of("PUBACK 1", "PUBACK 2"), acks());
        sink.next().done().complete(null);
        assertEquals(java.util.List.of("PUBACK 3"), acks());
        assertTrue(ch.isOpen());
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private static MqttPublishMessage publish(MqttQoS qos, int packetId) {
        return MqttMessageBuilders.publish().topicName("up/" + packetId).qos(qos).messageId(packetId)
                .payload(Unpooled.copiedBuffer("payload-" + packetId, StandardCharsets.UTF_8)).build();
    }

    private static MqttMessage pubrel(int packetId) {
        return new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(packetId));
    }

    /** Acknowledgements written so far, as "TYPE id". */
    private List<String> acks() {
        List<String> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            MqttMessage m = (MqttMessage) o;
            out.add(m.fixedHeader().messageType() + " "
                    + ((MqttMessageIdVariableHeader) m.variableHeader()).messageId());
        }
        return out;
    }

    private double count(String name) {
        return meters.get(name).counter().count();
    }

    @Test
    void handsTheMessageToTheSinkAndReleasesThePublish() {
        MqttPublishMessage publish = publish(MqttQoS.AT_LEAST_ONCE, 7);
        ch.writeInbound(publish);

        assertEquals(0, publish.refCnt(), "the handler consumed the PUBLISH");
        assertNull(ch.readInbound(), "not passed on");
        UplinkMessage m = sink.next().message();
        assertEquals("dev-1", m.clientId());
        assertEquals("up/7", m.topic());
        assertEquals(1, m.qos());
        assertFalse(m.retain());
        assertArrayEquals("payload-7".getBytes(StandardCharsets.UTF_8), m.payload());
        assertEquals(1.0, metrics.publishesReceived(1));
    }

    @Test
    void acknowledgesQos1OnlyAfterSinkCompletes() {
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 7));
        ManualSink.Pending pending = sink.next();
        assertEquals(List.of(), acks(), "no PUBACK while the sink has not accepted the message");

        pending.done().complete(null);

        assertEquals(List.of("PUBACK 7"), acks());
    }

    @Test
    void sendsPubacksInArrivalOrderWhenTheSinkCompletesOutOfOrder() {
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 2));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 3));
        ManualSink.Pending first = sink.next();
        ManualSink.Pending second = sink.next();
        ManualSink.Pending third = sink.next();

        third.done().complete(null);
        assertEquals(List.of(), acks(), "3 waits for 1 and 2");
        first.done().complete(null);
        assertEquals(List.of("PUBACK 1"), acks());
        second.done().complete(null);
        assertEquals(List.of("PUBACK 2", "PUBACK 3"), acks());
    }

    @Test
    void pausesReadingAtMaxInflightAndResumesAfterHalfHaveDrained() {
        channel(4);
        for (int id = 1; id <= 3; id++) {
            ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, id));
        }
        assertTrue(ch.config().isAutoRead(), "3 of 4 waiting");

        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 4));
        assertFalse(ch.config().isAutoRead(), "4 of 4 waiting: reading stops");

        sink.next().done().complete(null);
        assertFalse(ch.config().isAutoRead(), "3 still waiting");
        sink.next().done().complete(null);
        assertTrue(ch.config().isAutoRead(), "2 waiting is half the window: reading resumes");
        assertEquals(List.of("PUBACK 1", "PUBACK 2"), acks());
    }

    @Test
    void qos0DoesNotCountTowardsTheInflightWindow() {
        channel(2);
        for (int i = 0; i < 10; i++) {
            ch.writeInbound(publish(MqttQoS.AT_MOST_ONCE, 0));
        }
        assertTrue(ch.config().isAutoRead());
        assertEquals(10, sink.size());
        assertEquals(List.of(), acks(), "QoS 0 is never acknowledged");
    }

    @Test
    void countsARefusedQos0AndWritesNothing() {
        refusingSink(m -> CompletableFuture.failedFuture(new UplinkRejectedException("full")));
        ch.writeInbound(publish(MqttQoS.AT_MOST_ONCE, 0));

        assertEquals(1, sink.size());
        assertEquals(1.0, count("mqttgw.uplink.refused"));
        assertEquals(0.0, count("mqttgw.uplink.failed"));
        assertEquals(List.of(), acks());
        assertTrue(ch.isOpen());
    }

    @Test
    void countsAFailedQos0AsFailedNotRefused() {
        refusingSink(m -> CompletableFuture.failedFuture(new IllegalStateException("broker down")));
        ch.writeInbound(publish(MqttQoS.AT_MOST_ONCE, 0));

        assertEquals(0.0, count("mqttgw.uplink.refused"));
        assertEquals(1.0, count("mqttgw.uplink.failed"));
    }

    @Test
    void aFailedQos1ClosesTheConnectionAsSinkFailedAndNothingAfterItIsAcknowledged() {
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 2));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 3));
        ManualSink.Pending first = sink.next();
        ManualSink.Pending second = sink.next();
        ManualSink.Pending third = sink.next();

        second.done().complete(null);
        first.done().completeExceptionally(new IllegalStateException("write failed"));
        third.done().complete(null);
        // an MQTT 3.1.1 device resends unacknowledged messages only after a reconnect
        assertEquals(List.of(), acks(), "neither 1 nor what followed it is acknowledged");
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SINK_FAILED, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, count("mqttgw.uplink.failed"));
    }

    @Test
    void aRefusedQos1IsCountedAsRefusedAndClosesTheConnection() {
        refusingSink(m -> CompletableFuture.failedFuture(new UplinkRejectedException("full")));
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1));

        assertEquals(List.of(), acks());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SINK_FAILED, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, count("mqttgw.uplink.refused"));
    }

    @Test
    void qos2IsAnsweredWithPubrecAfterTheSinkAndPubrelWithPubcomp() {
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        ManualSink.Pending pending = sink.next();
        assertEquals(List.of(), acks());

        pending.done().complete(null);
        assertEquals(List.of("PUBREC 5"), acks());

        ch.writeInbound(pubrel(5));
        assertEquals(List.of("PUBCOMP 5"), acks());
        assertNull(ch.readInbound(), "PUBREL consumed");
    }

    @Test
    void aRetransmittedQos2BeforePubrelIsNotSentToTheSinkAgain() {
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        sink.next().done().complete(null);
        assertEquals(List.of("PUBREC 5"), acks());

        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5)); // the PUBREC was lost; the device sends it again
        assertEquals(0, sink.size(), "not delivered twice");
        assertEquals(List.of("PUBREC 5"), acks(), "answered again");
        assertEquals(2.0, metrics.publishesReceived(2));

        ch.writeInbound(pubrel(5));
        assertEquals(List.of("PUBCOMP 5"), acks());

        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5)); // after PUBREL the id is free: a new message
        assertEquals(1, sink.size());
    }

    @Test
    void answeredQos2RetransmissionsQueuedBehindASlowHeadPauseReadingAtTheWindow() {
        channel(4);
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1)); // the head: waits for the sink
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 7));
        ManualSink.Pending head = sink.next();
        sink.next().done().complete(null); // 7 answered by the sink, its PUBREC waits behind 1
        assertTrue(ch.config().isAutoRead());
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 7)); // duplicates: each queues a PUBREC behind the head
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 7));
        assertFalse(ch.config().isAutoRead(), "4 answers queued: the duplicate path stops reading too");
        assertEquals(1.0, (double) metrics.pausedChannels());
        head.done().complete(null);
        assertTrue(ch.config().isAutoRead());
        assertEquals(List.of("PUBACK 1", "PUBREC 7", "PUBREC 7", "PUBREC 7"), acks());
    }

    @Test
    void publishesOutsideTheAclQueuedBehindASlowHeadPauseReadingAtTheWindowWhenIgnored() {
        channel(4, UP_ONLY, false);
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1)); // allowed: waits for the sink
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 2)); // denied, acknowledged in order behind 1
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 4));
        assertTrue(ch.config().isAutoRead());
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 6));
        assertFalse(ch.config().isAutoRead(), "4 answers queued: the ignore path stops reading too");
        sink.next().done().complete(null);
        assertTrue(ch.config().isAutoRead());
        assertEquals(List.of("PUBACK 1", "PUBACK 2", "PUBACK 4", "PUBREC 6"), acks());
    }

    @Test
    void qos2IdsAwaitingPubrelAreBoundedByTheWindow() {
        channel(4);
        for (int id = 1; id <= 100; id++) {
            ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, id));
            sink.next().done().complete(null); // answered with PUBREC; the device never sends PUBREL
        }
        UplinkAcks acks = ConnectionContext.of(ch).acks(4);
        assertEquals(4, acks.awaitingRelease(), "not 100: the oldest answered ids are forgotten");
        assertEquals(96, acks.forgotten());
        assertEquals(100, acks().size());
        ch.writeInbound(pubrel(1)); // a PUBREL for a forgotten id still completes the flow
        assertEquals(List.of("PUBCOMP 1"), acks());
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 100)); // a remembered id is still a duplicate
        assertEquals(0, sink.size());
    }

    @Test
    void aRetransmittedQos2WhileTheFirstStillWaitsIsAnsweredAfterIt() {
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        ManualSink.Pending first = sink.next();
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        assertEquals(0, sink.size());
        assertEquals(List.of(), acks(), "no PUBREC before the sink took the first copy");

        first.done().complete(null);
        assertEquals(List.of("PUBREC 5"), acks(), "the first copy's PUBREC answers both");
    }

    @Test
    void aRetransmittedQos2IsNotAcknowledgedWhenTheSinkRefusedTheFirstCopy() {
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        ManualSink.Pending first = sink.next();
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5)); // retransmitted while the first copy waits
        assertEquals(0, sink.size());

        first.done().completeExceptionally(new UplinkRejectedException("full"));

        // nothing reached the sink: a PUBREC would tell the device the message is safe, and it would be lost
        assertEquals(List.of(), acks());
    }

    @Test
    void aRefusedQos2GetsNoPubrecAndClosesTheConnection() {
        ch.writeInbound(publish(MqttQoS.EXACTLY_ONCE, 5));
        sink.next().done().completeExceptionally(new UplinkRejectedException("full"));
        assertEquals(List.of(), acks());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SINK_FAILED, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void writesNothingWhenTheSinkCompletesAfterTheChannelClosed() {
        ch.writeInbound(publish(MqttQoS.AT_LEAST_ONCE, 1));
        ManualSink.Pending pending = sink.next();
        ch.close();

        pending.done().complete(null);
        assertEquals(List.of(), acks());
    }

    @Test
    void otherPacketsReachNoSink() {
        ch.writeInbound(MqttMessage.PINGREQ);
        assertNull(ch.readInbound());
        assertEquals(0, sink.size());
    }
}
