package io.mqttgw.core.mqtt.publish;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.testkit.Mqtt5Fixture;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.ProtocolFixture.ManualSink;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PUBLISH from an MQTT 5.0 device: properties to the sink, reason codes on the acknowledgements. */
class UplinkPublishMqtt5Test {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);
    private final ManualSink sink = new ManualSink();
    private EmbeddedChannel ch;

    private ConnectionContext channel(TopicAcl acl, boolean disconnectOnViolation, ProtocolCapabilities capabilities) {
        return channel(acl, disconnectOnViolation, capabilities, 32, 4);
    }

    private ConnectionContext channel(TopicAcl acl, boolean disconnectOnViolation, ProtocolCapabilities capabilities,
                                      int window, int topicAliasMaximum) {
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.capabilities(capabilities);
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, acl, false);
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(ProtocolFixture.sessionHandler(
                new UplinkPublishHandler(sink, metrics, window, disconnectOnViolation, TopicLimits.DEFAULT,
                        topicAliasMaximum)));
        return context;
    }

    private ConnectionContext channel() {
        return channel(TopicAcl.ALLOW_ALL, true, Mqtt5Fixture.mqtt5());
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    static MqttPublishMessage publish(String topic, MqttQoS qos, int packetId, byte[] payload,
                                      MqttProperties properties) {
        return new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false, qos, false, 0),
                new MqttPublishVariableHeader(topic, packetId, properties), Unpooled.wrappedBuffer(payload));
    }

    static MqttProperties requestProperties() {
        MqttProperties p = new MqttProperties();
        p.add(new MqttProperties.IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        p.add(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, "application/json"));
        p.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, "replies/dev-1"));
        p.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, new byte[] {1, 2, 3}));
        MqttProperties.UserProperties users = new MqttProperties.UserProperties();
        users.add("trace", "t-1");
        users.add("trace", "t-2");
        p.add(users);
        return p;
    }

    /** PUBACK/PUBREC/PUBCOMP written, as "TYPE id reason". */
    private List<String> acks() {
        List<String> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            MqttMessage m = (MqttMessage) o;
            int id = ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
            int reason = m.variableHeader() instanceof MqttPubReplyMessageVariableHeader r ? r.reasonCode() & 0xFF : 0;
            out.add(m.fixedHeader().messageType() + " " + id + " " + Integer.toHexString(reason));
        }
        return out;
    }

    @Test
    void passesThePublishPropertiesToTheSink() {
        channel();
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 1, "{}".getBytes(StandardCharsets.UTF_8),
                requestProperties()));
        UplinkMessage m = sink.next().message();
        MessageProperties p = m.properties();
        assertTrue(p.utf8Payload());
        assertEquals("application/json", p.contentType());
        assertEquals("replies/dev-1", p.responseTopic());
        assertArrayEquals(new byte[] {1, 2, 3}, p.correlationData());
        assertEquals(List.of(new MessageProperties.UserProperty("trace", "t-1"),
                new MessageProperties.UserProperty("trace", "t-2")), p.userProperties());
    }

    @Test
    void passesTheMessageExpiryIntervalToTheSinkAsAnUnsignedValue() {
        channel();
        MqttProperties expiry = new MqttProperties();
        expiry.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 60));
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, expiry));
        MqttProperties longest = new MqttProperties();
        longest.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, -1));
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, longest));
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertEquals(60L, sink.next().message().expiryInterval());
        assertEquals(4_294_967_295L, sink.next().message().expiryInterval(), "four bytes, unsigned");
        assertFalse(sink.next().message().expires());
    }

    @Test
    void aThreeOneOneMessageCarriesNoProperties() {
        channel(TopicAcl.ALLOW_ALL, true, ProtocolCapabilities.MQTT_3_1_1);
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertSame(MessageProperties.NONE, sink.next().message().properties());
    }

    @Test
    void refusesAPayloadThatIsNotTheUtf8ItClaimsWith0x99InOrder() {
        channel();
        MqttProperties utf8 = new MqttProperties();
        utf8.add(new MqttProperties.IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 1, new byte[] {'o', 'k'}, utf8));
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 2, new byte[] {(byte) 0xC3, (byte) 0x28}, utf8));
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 3, new byte[] {(byte) 0xFF}, utf8));
        assertEquals(1, sink.size(), "only the valid one reaches the sink");
        assertEquals(List.of(), acks(), "the refusals wait behind the first PUBLISH's answer");
        sink.next().done().complete(null);
        assertEquals(List.of("PUBACK 1 0", "PUBACK 2 99", "PUBREC 3 99"), acks());
        assertEquals(2.0, metrics.publishesRefused("payload_format_invalid"));
        assertTrue(ch.isOpen());
        // the failed PUBREC ended that QoS 2 flow: a PUBREL for it finds nothing
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(3)));
        assertEquals(List.of("PUBCOMP 3 92"), acks());
    }

    @Test
    void aBinaryPayloadWithoutTheIndicatorIsNotChecked() {
        channel();
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {(byte) 0xFF}, new MqttProperties()));
        assertEquals(1, sink.size());
    }

    @Test
    void answersAPublishOutsideTheAclWith0x87InsteadOfClosing() {
        channel(new TopicAcl(List.of("up/1"), List.of()), true, Mqtt5Fixture.mqtt5());
        ch.writeInbound(publish("up/2", MqttQoS.AT_LEAST_ONCE, 5, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/2", MqttQoS.EXACTLY_ONCE, 6, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertEquals(List.of("PUBACK 5 87", "PUBREC 6 87"), acks());
        assertTrue(ch.isOpen());
        assertEquals(0, sink.size());
        assertEquals(2.0, metrics.aclDenials(true));
        assertEquals(2.0, metrics.publishesRefused("not_authorized"));
    }

    @Test
    void aQos0PublishOutsideTheAclStillFollowsTheDisconnectRule() {
        ConnectionContext context = channel(new TopicAcl(List.of("up/1"), List.of()), true, Mqtt5Fixture.mqtt5());
        ch.writeInbound(publish("up/2", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.NOT_AUTHORIZED, context.closeReason());
    }

    @Test
    void aSinkFailureIs0x80AndARefusalNotForCapacity0x97OnTheAckAndTheConnectionStays() {
        // a refusal for capacity from a sink that can tell when it has room waits instead (UplinkHoldTest)
        channel();
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 1, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 3, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        sink.next().done().completeExceptionally(new IllegalStateException("broker down"));
        sink.next().done().completeExceptionally(new UplinkRejectedException("closed"));
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBACK 1 80", "PUBREC 2 97", "PUBACK 3 0"), acks());
        assertTrue(ch.isOpen());
        assertEquals(1.0, metrics.publishesRefused("unspecified_error"));
        assertEquals(1.0, metrics.publishesRefused("quota_exceeded"));
        // the refused QoS 2 id is free again: a resend is a new message for the sink
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertEquals(1, sink.size());
    }

    @Test
    void aThreeOneOneSinkFailureStillClosesTheConnection() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL, true, ProtocolCapabilities.MQTT_3_1_1);
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 1, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        sink.next().done().completeExceptionally(new IllegalStateException("broker down"));
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SINK_FAILED, context.closeReason());
    }

    @Test
    void aPubrelForAnUnknownIdIsAnsweredWith0x92() {
        channel();
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(77)));
        assertEquals(List.of("PUBCOMP 77 92"), acks());
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 8, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBREC 8 0"), acks());
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(8)));
        assertEquals(List.of("PUBCOMP 8 0"), acks());
    }

    @Test
    void aThreeOneOnePubrelForAnUnknownIdGetsAPlainPubcomp() {
        channel(TopicAcl.ALLOW_ALL, true, ProtocolCapabilities.MQTT_3_1_1);
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(77)));
        MqttMessage pubcomp = assertInstanceOf(MqttMessage.class, ch.readOutbound());
        assertFalse(pubcomp.variableHeader() instanceof MqttPubReplyMessageVariableHeader);
        assertNull(ch.readOutbound());
    }

    private static MqttProperties alias(int alias) {
        MqttProperties p = new MqttProperties();
        p.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS, alias));
        return p;
    }

    @Test
    void aTopicAliasSetWithATopicStandsForItAfterwards() {
        channel();
        ch.writeInbound(publish("up/long/topic", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, alias(3)));
        ch.writeInbound(publish("", MqttQoS.AT_MOST_ONCE, 0, new byte[] {2}, alias(3)));
        ch.writeInbound(publish("up/other", MqttQoS.AT_MOST_ONCE, 0, new byte[] {3}, alias(3)));
        ch.writeInbound(publish("", MqttQoS.AT_MOST_ONCE, 0, new byte[] {4}, alias(3)));
        assertEquals(List.of("up/long/topic", "up/long/topic", "up/other", "up/other"),
                List.of(sink.next().message().topic(), sink.next().message().topic(), sink.next().message().topic(),
                        sink.next().message().topic()));
        assertTrue(ch.isOpen());
    }

    @Test
    void aliasZeroAboveTheMaximumOrUnknownWithAnEmptyTopicClosesWithTopicAliasInvalid() {
        for (Object[] bad : new Object[][] {{"up/1", 0}, {"up/1", 5}, {"", 2}}) {
            ConnectionContext context = channel();
            ch.writeInbound(publish((String) bad[0], MqttQoS.AT_LEAST_ONCE, 1, new byte[] {1},
                    alias((Integer) bad[1])));
            assertFalse(ch.isOpen(), "alias " + bad[1] + " with topic '" + bad[0] + "'");
            assertEquals(DisconnectReason.TOPIC_ALIAS_INVALID, context.closeReason());
            assertEquals(0, sink.size());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aConnectionWithoutAliasesHasNoAliasTable() throws Exception {
        ConnectionContext context = channel();
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        java.lang.reflect.Field table = ConnectionContext.class.getDeclaredField("topicAliases");
        table.setAccessible(true);
        assertNull(table.get(context), "made only when the device uses an alias");
        ch.writeInbound(publish("up/1", MqttQoS.AT_MOST_ONCE, 0, new byte[] {1}, alias(4)));
        assertEquals(5, ((String[]) table.get(context)).length, "the announced maximum plus the unused index 0");
    }

    @Test
    void morePublishesUnacknowledgedThanTheReceiveMaximumCloseWith0x93() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL, true, Mqtt5Fixture.mqtt5(), 2, 4);
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 1, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        // a retransmission of the QoS 2 one is not a new message
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertTrue(ch.isOpen());
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 3, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.RECEIVE_MAXIMUM_EXCEEDED, context.closeReason());
    }

    @Test
    void theReceiveMaximumCountsAQos2MessageUntilItsPubrel() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL, true, Mqtt5Fixture.mqtt5(), 2, 4);
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 1, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        sink.next().done().complete(null);
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBREC 1 0", "PUBACK 2 0"), acks());
        // PUBREC sent, PUBREL not yet: the QoS 2 message still counts, so one more fits and a second does not
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 3, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertTrue(ch.isOpen());
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 4, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.RECEIVE_MAXIMUM_EXCEEDED, context.closeReason());
    }

    @Test
    void aPubrelFreesTheQos2MessagesPlaceUnderTheReceiveMaximum() {
        channel(TopicAcl.ALLOW_ALL, true, Mqtt5Fixture.mqtt5(), 2, 4);
        ch.writeInbound(publish("up/1", MqttQoS.EXACTLY_ONCE, 1, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        sink.next().done().complete(null);
        ch.runPendingTasks();
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(1)));
        assertEquals(List.of("PUBREC 1 0", "PUBCOMP 1 0"), acks());
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 2, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, 3, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        assertTrue(ch.isOpen(), "the PUBREL freed its place");
    }

    @Test
    void aThreeOneOneConnectionIgnoresTheReceiveMaximum() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL, true, ProtocolCapabilities.MQTT_3_1_1, 2, 4);
        for (int id = 1; id <= 4; id++) {
            ch.writeInbound(publish("up/1", MqttQoS.AT_LEAST_ONCE, id, new byte[] {1}, MqttProperties.NO_PROPERTIES));
        }
        assertTrue(ch.isOpen(), "3.1.1 has no receive maximum: reading pauses instead");
        assertNull(context.closeReason());
    }
}
