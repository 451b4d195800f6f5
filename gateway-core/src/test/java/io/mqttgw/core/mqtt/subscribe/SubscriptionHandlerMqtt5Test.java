package io.mqttgw.core.mqtt.subscribe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.mqtt.downlink.SubscriptionMatcher;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.testkit.Mqtt5Fixture;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.topic.SubscriptionMatch;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption.RetainedHandlingPolicy;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SUBSCRIBE and UNSUBSCRIBE of an MQTT 5.0 connection: reason codes and subscription options. */
class SubscriptionHandlerMqtt5Test {
    @TempDir
    Path dir;
    private EmbeddedChannel ch;
    private ProtocolFixture f;

    private ConnectionContext channel(TopicAcl acl, String... overrides) {
        f = ProtocolFixture.create(dir, overrides);
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.capabilities(Mqtt5Fixture.mqtt5());
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, acl, false);
        context.restored();
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(f.sessionHandler());
        return context;
    }

    @AfterEach
    void finish() {
        if (ch != null) {
            // no lifecycle handler in this pipeline: end the downlink session as a close would, so the retained
            // QoS 1 messages still waiting for their PUBACK release their buffers
            DownlinkSession downlink = ConnectionContext.of(ch).downlinkOrNull();
            if (downlink != null) {
                downlink.close();
            }
            ch.finishAndReleaseAll();
        }
    }

    private static MqttSubscriptionOption option(int qos, boolean retainAsPublished, int retainHandling) {
        return new MqttSubscriptionOption(MqttQoS.valueOf(qos), false, retainAsPublished,
                RetainedHandlingPolicy.valueOf(retainHandling));
    }

    private List<Integer> subscribe(int identifier, Object... filterAndOption) {
        var builder = MqttMessageBuilders.subscribe().messageId(9);
        if (identifier > 0) {
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER, identifier));
            builder.properties(properties);
        }
        for (int i = 0; i < filterAndOption.length; i += 2) {
            builder.addSubscription((String) filterAndOption[i], (MqttSubscriptionOption) filterAndOption[i + 1]);
        }
        ch.writeInbound(builder.build());
        MqttSubAckMessage suback = assertInstanceOf(MqttSubAckMessage.class, ch.readOutbound());
        return suback.payload().reasonCodes();
    }

    @Test
    void subackSaysWhyEachFilterIsRefused() {
        TopicAcl own = new TopicAcl(List.of("#"), List.of("devices/{client-id}/#", "$share/#"));
        channel(own, "mqtt.max-qos", "1");
        assertEquals(List.of(1, 0x87, 0x9E, 0x8F, 0), subscribe(0,
                "devices/dev-1/commands", option(2, false, 0),
                "devices/dev-2/commands", option(1, false, 0),
                "$share/group/devices/dev-1/x", option(1, false, 0),
                "devices/dev-1/#/bad", option(1, false, 0),
                "devices/dev-1/cfg", option(0, false, 0)));
    }

    @Test
    void subackSaysQuotaExceededPastMaxSubscriptions() {
        channel(TopicAcl.ALLOW_ALL, "mqtt.max-subscriptions", "1");
        assertEquals(List.of(1, 0x97), subscribe(0, "a", option(1, false, 0), "b", option(1, false, 0)));
    }

    @Test
    void keepsTheSubscriptionOptionsAndIdentifierPerFilter() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL);
        subscribe(42, "cmd/+", option(1, true, 1), "cfg/#", option(0, false, 2));
        subscribe(0, "plain/#", option(1, false, 0));
        assertEquals(new Subscription(1, true, 1, 42), context.subscriptions().get("cmd/+"));
        assertEquals(new Subscription(0, false, 2, 42), context.subscriptions().get("cfg/#"));
        assertSame(Subscription.ofQos(1), context.subscriptions().get("plain/#"),
                "default options cost what a 3.1.1 subscription costs: a shared constant");
    }

    @Test
    void aMatchFoldsEveryMatchingSubscription() {
        ConnectionContext context = channel(TopicAcl.ALLOW_ALL);
        subscribe(3, "cmd/+", option(0, false, 0));
        subscribe(5, "cmd/#", option(1, true, 0));
        subscribe(0, "cmd/x", option(0, false, 0));
        SubscriptionMatch match = SubscriptionMatcher.match(context.subscriptions(), "cmd/x");
        assertEquals(1, match.qos());
        assertTrue(match.retainAsPublished());
        assertEquals(List.of(3, 5), java.util.Arrays.stream(match.identifiers()).boxed().toList());
        assertNull(SubscriptionMatcher.match(context.subscriptions(), "other"));
    }

    @Test
    void unsubackSaysPerFilterWhetherASubscriptionExisted() {
        TopicAcl own = new TopicAcl(List.of("#"), List.of("devices/{client-id}/#"));
        ConnectionContext context = channel(own);
        subscribe(0, "devices/dev-1/a", option(1, false, 0));
        ch.writeInbound(MqttMessageBuilders.unsubscribe().messageId(4).addTopicFilter("devices/dev-1/a")
                .addTopicFilter("devices/dev-1/never").addTopicFilter("devices/dev-2/a").build());
        MqttUnsubAckMessage unsuback = assertInstanceOf(MqttUnsubAckMessage.class, ch.readOutbound());
        assertEquals(List.of((short) 0x00, (short) 0x11, (short) 0x87), unsuback.payload().unsubscribeReasonCodes());
        assertTrue(context.subscriptions().isEmpty());
    }

    /** Retain handling 0 sends retained messages on every SUBSCRIBE, 1 only for a new subscription, 2 never. */
    @Test
    void retainHandlingDecidesWhetherRetainedMessagesFollowTheSuback() throws Exception {
        channel(TopicAcl.ALLOW_ALL);
        f.services.sessions().retain(new DownlinkMessage(null, "cfg/a", 1, true,
                "v".getBytes(StandardCharsets.UTF_8))).toCompletableFuture().get();

        subscribe(0, "cfg/+", option(1, false, 2));
        assertEquals(0, retainedWritten(), "retain handling 2: never");

        subscribe(0, "cfg/#", option(1, false, 1));
        assertEquals(1, retainedWritten(), "retain handling 1, new subscription: sent");
        subscribe(0, "cfg/#", option(1, false, 1));
        assertEquals(0, retainedWritten(), "retain handling 1, existing subscription: not sent");

        subscribe(0, "cfg/#", option(1, false, 0));
        assertEquals(1, retainedWritten(), "retain handling 0: sent on every SUBSCRIBE");
    }

    private int retainedWritten() {
        ch.runPendingTasks();
        List<Object> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            out.add(o);
        }
        out.forEach(io.netty.util.ReferenceCountUtil::release);
        return out.size();
    }

    @Test
    void aThreeOneOneSubackKeepsTheSingleFailureCode() {
        f = ProtocolFixture.create(dir);
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, false);
        context.restored();
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(f.sessionHandler());
        ch.writeInbound(MqttMessageBuilders.subscribe().messageId(1).addSubscription(MqttQoS.AT_LEAST_ONCE,
                "$share/g/t").addSubscription(MqttQoS.AT_LEAST_ONCE, "a/#/b").build());
        MqttSubAckMessage suback = assertInstanceOf(MqttSubAckMessage.class, ch.readOutbound());
        assertEquals(List.of(0x80, 0x80), suback.payload().reasonCodes(), "3.1.1 has one failure code");
        assertTrue(context.subscriptions().isEmpty());
    }
}
