package io.mqttgw.core.mqtt.subscribe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.mqtt.downlink.SubscriptionMatcher;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttSubscribePayload;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribePayload;
import java.util.List;
import java.util.Map;
import io.mqttgw.core.metrics.GatewayMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Path;

class SubscriptionHandlerTest {
    @TempDir
    Path dir;
    private EmbeddedChannel ch;
    private ProtocolFixture f;
    private GatewayMetrics metrics;

    private ConnectionContext channel(int maxSubscriptions, int maxQos) {
        return channel(maxSubscriptions, maxQos, TopicAcl.ALLOW_ALL);
    }

    private ConnectionContext channel(int maxSubscriptions, int maxQos, TopicAcl acl) {
        return channel(maxSubscriptions, maxQos, acl, false);
    }

    private ConnectionContext channel(int maxSubscriptions, int maxQos, TopicAcl acl, boolean persistent) {
        f = ProtocolFixture.create(dir, "mqtt.max-subscriptions", Integer.toString(maxSubscriptions),
                "mqtt.max-qos", Integer.toString(maxQos));
        metrics = f.metrics;
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, acl, persistent);
        context.restored();
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(f.sessionHandler());
        return context;
    }

    /** Filter to granted QoS, in subscription order. */
    static Map<String, Integer> granted(ConnectionContext context) {
        Map<String, Integer> qos = new java.util.LinkedHashMap<>();
        context.subscriptions().forEach((filter, s) -> qos.put(filter, s.qos()));
        return qos;
    }

    @Test
    void refusesFiltersOutsideTheDevicesAcl() {
        TopicAcl own = new TopicAcl(List.of("devices/{client-id}/#"), List.of("devices/{client-id}/#"));
        ConnectionContext context = channel(16, 1, own);
        assertEquals(List.of(1, 0x80, 0x80, 0), subscribe(1, MqttQoS.AT_LEAST_ONCE, "devices/dev-1/commands",
                MqttQoS.AT_LEAST_ONCE, "devices/+/commands", MqttQoS.AT_MOST_ONCE, "devices/dev-2/commands",
                MqttQoS.AT_MOST_ONCE, "devices/dev-1/#"));
        assertEquals(Map.of("devices/dev-1/commands", 1, "devices/dev-1/#", 0), granted(context));
        assertEquals(2.0, metrics.aclDenials(false));
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private List<Integer> subscribe(int messageId, Object... qosAndFilter) {
        var builder = MqttMessageBuilders.subscribe().messageId(messageId);
        for (int i = 0; i < qosAndFilter.length; i += 2) {
            builder.addSubscription((MqttQoS) qosAndFilter[i], (String) qosAndFilter[i + 1]);
        }
        ch.writeInbound(builder.build());
        MqttSubAckMessage suback = assertInstanceOf(MqttSubAckMessage.class, ch.readOutbound());
        assertEquals(messageId, suback.variableHeader().messageId());
        assertNull(ch.readOutbound());
        return suback.payload().grantedQoSLevels();
    }

    @Test
    void grantsValidFiltersWithQosCappedAtMaxQos() {
        ConnectionContext context = channel(16, 1);

        List<Integer> granted = subscribe(7, MqttQoS.EXACTLY_ONCE, "cmd/dev-1", MqttQoS.AT_MOST_ONCE, "cfg/+",
                MqttQoS.AT_LEAST_ONCE, "ota/#");

        assertEquals(List.of(1, 0, 1), granted);
        assertEquals(Map.of("cmd/dev-1", 1, "cfg/+", 0, "ota/#", 1), granted(context));
        assertEquals(List.of("cmd/dev-1", "cfg/+", "ota/#"), List.copyOf(context.subscriptions().keySet()),
                "kept in subscription order");
        assertTrue(ch.isOpen());
        assertNull(ch.readInbound(), "SUBSCRIBE consumed");
    }

    @Test
    void grantsQos2WhenMaxQosAllowsIt() {
        channel(16, 2);
        assertEquals(List.of(2), subscribe(1, MqttQoS.EXACTLY_ONCE, "cmd/#"));
    }

    @Test
    void refusesInvalidFiltersWith0x80AndGrantsTheOthers() {
        ConnectionContext context = channel(16, 1);

        List<Integer> granted = subscribe(3, MqttQoS.AT_LEAST_ONCE, "#/a", MqttQoS.AT_LEAST_ONCE, "ok/+",
                MqttQoS.AT_LEAST_ONCE, "a+", MqttQoS.AT_LEAST_ONCE, "a/#/b", MqttQoS.AT_LEAST_ONCE, "");

        assertEquals(List.of(0x80, 1, 0x80, 0x80, 0x80), granted);
        assertEquals(Map.of("ok/+", 1), granted(context));
        assertTrue(ch.isOpen(), "a refused filter does not close the connection");
    }

    @Test
    void refusesFiltersPastMaxSubscriptions() {
        ConnectionContext context = channel(2, 1);

        assertEquals(List.of(1, 0, 0x80), subscribe(1, MqttQoS.AT_LEAST_ONCE, "a", MqttQoS.AT_MOST_ONCE, "b",
                MqttQoS.AT_LEAST_ONCE, "c"));
        assertEquals(2, context.subscriptions().size());
        assertFalse(context.subscriptions().containsKey("c"));

        // a filter already held may be subscribed again at the limit: it replaces the old QoS
        assertEquals(List.of(1), subscribe(2, MqttQoS.AT_LEAST_ONCE, "b"));
        assertEquals(1, context.subscriptions().get("b").qos());
        assertEquals(2, context.subscriptions().size());
    }

    @Test
    void refusesEverySubscriptionWhenMaxSubscriptionsIsZero() {
        ConnectionContext context = channel(0, 1);
        assertEquals(List.of(0x80), subscribe(1, MqttQoS.AT_LEAST_ONCE, "a"));
        assertTrue(context.subscriptions().isEmpty());
    }

    @Test
    void unsubscribeRemovesTheFiltersAndSendsUnsuback() {
        ConnectionContext context = channel(16, 1);
        subscribe(1, MqttQoS.AT_LEAST_ONCE, "a/+", MqttQoS.AT_LEAST_ONCE, "b/#");
        assertEquals(1, SubscriptionMatcher.grantedQos(context.subscriptions(), "a/x"));

        ch.writeInbound(MqttMessageBuilders.unsubscribe().messageId(9).addTopicFilter("a/+")
                .addTopicFilter("never/subscribed").build());

        MqttUnsubAckMessage unsuback = assertInstanceOf(MqttUnsubAckMessage.class, ch.readOutbound());
        assertEquals(9, unsuback.variableHeader().messageId());
        assertEquals(MqttMessageType.UNSUBACK, unsuback.fixedHeader().messageType());
        assertEquals(Map.of("b/#", 1), granted(context));
        assertEquals(-1, SubscriptionMatcher.grantedQos(context.subscriptions(), "a/x"));
        assertTrue(ch.isOpen());
    }

    @Test
    void unsubscribeFreesRoomUnderMaxSubscriptions() {
        channel(1, 1);
        subscribe(1, MqttQoS.AT_LEAST_ONCE, "a");
        ch.writeInbound(MqttMessageBuilders.unsubscribe().messageId(2).addTopicFilter("a").build());
        ch.readOutbound();
        assertEquals(List.of(1), subscribe(3, MqttQoS.AT_LEAST_ONCE, "b"));
    }

    @Test
    void closesOnAnEmptySubscribe() {
        channel(16, 1);
        ch.writeInbound(new MqttSubscribeMessage(
                new MqttFixedHeader(MqttMessageType.SUBSCRIBE, false, MqttQoS.AT_LEAST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(1), new MqttSubscribePayload(List.of())));

        assertNull(ch.readOutbound(), "no SUBACK");
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesOnAnEmptyUnsubscribe() {
        channel(16, 1);
        ch.writeInbound(new MqttUnsubscribeMessage(
                new MqttFixedHeader(MqttMessageType.UNSUBSCRIBE, false, MqttQoS.AT_LEAST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(1), new MqttUnsubscribePayload(List.of())));

        assertNull(ch.readOutbound(), "no UNSUBACK");
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesOnAnEmptySubscribeFromTheWire() {
        channel(16, 1);
        ch.pipeline().addFirst(new io.netty.handler.codec.mqtt.MqttDecoder());
        ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {(byte) 0x82, 0x02, 0x00, 0x01}));

        assertNull(ch.readOutbound(), "no SUBACK");
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void otherPacketsLeaveTheSubscriptionsAlone() {
        ConnectionContext context = channel(16, 1);
        ch.writeInbound(MqttMessage.PINGREQ);
        assertNull(ch.readInbound());
        assertEquals(MqttMessageType.PINGRESP, ((MqttMessage) ch.readOutbound()).fixedHeader().messageType());
        assertNull(ch.readOutbound(), "no SUBACK");
        assertTrue(context.subscriptions().isEmpty());
    }
}
