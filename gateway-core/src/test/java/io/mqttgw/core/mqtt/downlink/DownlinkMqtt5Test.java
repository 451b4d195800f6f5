package io.mqttgw.core.mqtt.downlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.codec.PublishProperties;
import io.mqttgw.core.pipeline.EstablishedSessionHandler;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.testkit.Mqtt5Fixture;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Downlink to an MQTT 5.0 device: properties, expiry left, subscription identifiers, its limits. */
class DownlinkMqtt5Test {
    /** Where Netty's codec keeps the protocol version of a channel (set by its decoder on CONNECT). */
    private static final AttributeKey<MqttVersion> MQTT_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");
    private static final EstablishedSessionHandler SESSION = ProtocolFixture.defaultSessionHandler();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);
    private final ChannelRegistry registry = new ChannelRegistry(4);
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final InMemorySessionStore sessions = new InMemorySessionStore(60_000, 100, 100,
            System::currentTimeMillis);

    private DownlinkDispatcher dispatcher(int maxInflight) {
        return new DownlinkDispatcher(registry, new GatewayConfig.Downlink(maxInflight, 100,
                Duration.ofSeconds(30), 3, 100_000), metrics, pacer, sessions);
    }

    private EmbeddedChannel device(String clientId, ProtocolCapabilities capabilities, String filter,
                                   Subscription subscription) {
        ConnectionContext context = new ConnectionContext("tcp");
        context.capabilities(capabilities);
        context.openSession(clientId, ProtocolFixture.route(clientId, 1), null, TopicAcl.ALLOW_ALL, false);
        return ProtocolFixture.subscribedDevice(SESSION, registry, channels, context, filter, subscription);
    }

    @AfterEach
    void finish() {
        ProtocolFixture.finishDevices(channels);
        pacer.shutdownNow();
    }

    /** What the gateway wrote, through the real encoder and decoded as a device of {@code version} would. */
    private static List<MqttMessage> written(EmbeddedChannel ch, MqttVersion version) {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.attr(MQTT_VERSION).set(version);
        EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        decoder.attr(MQTT_VERSION).set(version);
        for (Object out = ch.readOutbound(); out != null; out = ch.readOutbound()) {
            if (out instanceof ByteBuf buf) {
                decoder.writeInbound(buf);
            } else {
                encoder.writeOutbound(out);
                decoder.writeInbound((ByteBuf) encoder.readOutbound());
            }
        }
        List<MqttMessage> messages = new ArrayList<>();
        for (Object in = decoder.readInbound(); in != null; in = decoder.readInbound()) {
            messages.add((MqttMessage) in);
        }
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
        return messages;
    }

    private static void release(List<MqttMessage> messages) {
        messages.forEach(io.netty.util.ReferenceCountUtil::release);
    }

    private static MessageProperties request() {
        return new MessageProperties(true, "application/json", "replies/dev-1", new byte[] {7, 8},
                List.of(new MessageProperties.UserProperty("k", "v")));
    }

    private static void await(EmbeddedChannel ch) {
        for (int i = 0; i < 200; i++) {
            ch.runPendingTasks();
            if (ch.outboundMessages().size() > 0) {
                return;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The outcome, running the channel's loop (an embedded channel runs its tasks only when asked) meanwhile. */
    private static Outcome outcome(EmbeddedChannel ch, java.util.concurrent.CompletionStage<Outcome> stage)
            throws Exception {
        CompletableFuture<Outcome> f = stage.toCompletableFuture();
        for (int i = 0; i < 1000 && !f.isDone(); i++) {
            ch.runPendingTasks();
            Thread.sleep(5);
        }
        return f.get(1, TimeUnit.SECONDS);
    }

    @Test
    void aFiveDeviceGetsTheMessagePropertiesTheExpiryLeftAndItsSubscriptionIdentifier() throws Exception {
        EmbeddedChannel ch = device("dev-1", Mqtt5Fixture.mqtt5(), "cmd/#", Subscription.of(1, false, 0, 42));
        long expiresAt = System.currentTimeMillis() + 30_500;
        dispatcher(8).deliver(new DownlinkMessage("dev-1", "cmd/reboot", 1, false,
                "{}".getBytes(StandardCharsets.UTF_8), expiresAt, request()));
        await(ch);
        List<MqttMessage> out = written(ch, MqttVersion.MQTT_5);
        MqttPublishMessage publish = (MqttPublishMessage) out.get(0);
        MqttProperties p = publish.variableHeader().properties();
        MessageProperties back = PublishProperties.read(p);
        assertEquals("application/json", back.contentType());
        assertEquals("replies/dev-1", back.responseTopic());
        assertArrayEquals(new byte[] {7, 8}, back.correlationData());
        assertEquals(List.of(new MessageProperties.UserProperty("k", "v")), back.userProperties());
        assertTrue(back.utf8Payload());
        int left = (Integer) p.getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL).value();
        assertTrue(left >= 29 && left <= 31, "the interval left, rounded up: " + left);
        assertEquals(42, p.getProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER).value());
        assertEquals("{}", publish.payload().toString(StandardCharsets.UTF_8));
        release(out);
    }

    @Test
    void aThreeOneOneDeviceGetsThePayloadAlone() throws Exception {
        EmbeddedChannel ch = device("dev-1", ProtocolCapabilities.MQTT_3_1_1, "cmd/#", Subscription.ofQos(1));
        dispatcher(8).deliver(new DownlinkMessage("dev-1", "cmd/reboot", 1, false,
                "{}".getBytes(StandardCharsets.UTF_8), 0, request()));
        await(ch);
        Object raw = ch.outboundMessages().peek();
        assertTrue(raw instanceof ByteBuf, "the shared 3.1.1 encoding");
        List<MqttMessage> out = written(ch, MqttVersion.MQTT_3_1_1);
        assertEquals("{}", ((MqttPublishMessage) out.get(0)).payload().toString(StandardCharsets.UTF_8));
        release(out);
    }

    @Test
    void aPublishLargerThanTheDevicesMaximumPacketSizeIsNotSentAndIsCounted() throws Exception {
        EmbeddedChannel ch = device("dev-1", Mqtt5Fixture.mqtt5(65_535, 64), "cmd/#", Subscription.ofQos(1));
        DownlinkDispatcher dispatcher = dispatcher(8);
        Outcome big = outcome(ch, dispatcher.deliver(new DownlinkMessage("dev-1", "cmd/x", 1, false, new byte[100])));
        assertEquals(Outcome.TOO_LARGE, big);
        assertEquals(1.0, metrics.downlinkOutcomes(Outcome.TOO_LARGE));
        // 2 + 5 topic + 2 id + 1 property length + 40 payload + 2 fixed header = 52 bytes: fits
        dispatcher.deliver(new DownlinkMessage("dev-1", "cmd/x", 1, false, new byte[40]));
        await(ch);
        List<MqttMessage> out = written(ch, MqttVersion.MQTT_5);
        assertEquals(1, out.size());
        release(out);
    }

    @Test
    void theMaximumPacketSizeCountsTheProperties() throws Exception {
        // 2 fixed header + 7 topic + 2 id + 1 + (3 + 16 content type) + 40 payload = 71 bytes
        EmbeddedChannel ch = device("dev-1", Mqtt5Fixture.mqtt5(65_535, 70), "cmd/#", Subscription.ofQos(1));
        MessageProperties typed = new MessageProperties(false, "application/json", null, null, List.of());
        assertEquals(Outcome.TOO_LARGE, outcome(ch, dispatcher(8).deliver(new DownlinkMessage("dev-1", "cmd/x", 1,
                false, new byte[40], 0, typed))));
        assertEquals(0, ch.outboundMessages().size());
    }

    @Test
    void theDevicesReceiveMaximumCapsTheDownlinkInFlight() throws Exception {
        EmbeddedChannel ch = device("dev-1", Mqtt5Fixture.mqtt5(2, ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE),
                "cmd/#", Subscription.ofQos(1));
        DownlinkDispatcher dispatcher = dispatcher(10);
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            outcomes.add(dispatcher.deliver(new DownlinkMessage("dev-1", "cmd/" + i, 1, false, new byte[] {1}))
                    .toCompletableFuture());
        }
        await(ch);
        Thread.sleep(50);
        ch.runPendingTasks();
        List<MqttMessage> first = written(ch, MqttVersion.MQTT_5);
        assertEquals(2, first.size(), "receive maximum 2: two in flight, two wait");
        int id = ((MqttPublishMessage) first.get(0)).variableHeader().packetId();
        release(first);
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(id)));
        assertEquals(Outcome.DELIVERED, outcomes.get(0).get(5, TimeUnit.SECONDS));
        List<MqttMessage> next = written(ch, MqttVersion.MQTT_5);
        assertEquals(1, next.size(), "one acknowledged, one more goes out");
        release(next);
    }

    @Test
    void retainAsPublishedKeepsTheRetainFlagOfALiveMessage() throws Exception {
        EmbeddedChannel keeps = device("dev-1", Mqtt5Fixture.mqtt5(), "cfg/#", Subscription.of(1, true, 0, 0));
        EmbeddedChannel clears = device("dev-2", Mqtt5Fixture.mqtt5(), "cfg/#", Subscription.ofQos(1));
        DownlinkDispatcher dispatcher = dispatcher(8);
        dispatcher.deliver(new DownlinkMessage("dev-1", "cfg/a", 1, true, new byte[] {1}));
        dispatcher.deliver(new DownlinkMessage("dev-2", "cfg/a", 1, true, new byte[] {1}));
        await(keeps);
        await(clears);
        List<MqttMessage> a = written(keeps, MqttVersion.MQTT_5);
        List<MqttMessage> b = written(clears, MqttVersion.MQTT_5);
        assertTrue(a.get(0).fixedHeader().isRetain());
        assertFalse(b.get(0).fixedHeader().isRetain());
        release(a);
        release(b);
    }

    @Test
    void aQueuedMessageThatExpiresWhileWaitingIsNotSent() throws Exception {
        EmbeddedChannel ch = device("dev-1", Mqtt5Fixture.mqtt5(1, ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE),
                "cmd/#", Subscription.ofQos(1));
        DownlinkDispatcher dispatcher = dispatcher(8);
        dispatcher.deliver(new DownlinkMessage("dev-1", "cmd/a", 1, false, new byte[] {1}));
        CompletableFuture<Outcome> late = dispatcher.deliver(new DownlinkMessage("dev-1", "cmd/b", 1, false,
                new byte[] {2}, System.currentTimeMillis() + 100)).toCompletableFuture();
        await(ch);
        List<MqttMessage> first = written(ch, MqttVersion.MQTT_5);
        int id = ((MqttPublishMessage) first.get(0)).variableHeader().packetId();
        release(first);
        Thread.sleep(200);
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(id)));
        assertEquals(Outcome.EXPIRED, late.get(5, TimeUnit.SECONDS));
        assertEquals(0, ch.outboundMessages().size());
    }
}
