package io.mqttgw.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DownlinkDispatcherTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);
    private final ChannelRegistry registry = new ChannelRegistry(4);
    private final DownlinkDispatcher dispatcher = new DownlinkDispatcher(registry, metrics);
    private EmbeddedChannel ch;
    private ConnectionContext context;

    @BeforeEach
    void subscribedDevice() {
        ch = new EmbeddedChannel();
        context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL);
        context.subscriptions().put("cmd/#", 1);
        context.subscriptions().put("cfg/+", 0);
        context.subscriptions().put("ota/firmware", 2);
        ch.attr(ConnectionContext.KEY).set(context);
        registry.register("dev-1", ch);
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private static DownlinkMessage message(String clientId, String topic, int qos) {
        return new DownlinkMessage(clientId, topic, qos, false, ("to " + topic).getBytes(StandardCharsets.UTF_8));
    }

    private Outcome deliver(DownlinkMessage m) {
        CompletionStage<Outcome> stage = dispatcher.deliver(m);
        ch.runPendingTasks(); // the write runs on the channel's event loop
        CompletableFuture<Outcome> f = stage.toCompletableFuture();
        assertTrue(f.isDone());
        return f.join();
    }

    private double sent(int qos) {
        return meters.get("mqttgw.publish.out").tag("qos", Integer.toString(qos)).counter().count();
    }

    @Test
    void writesAPublishAtTheLowerOfGrantedAndMessageQos() {
        assertEquals(Outcome.DELIVERED, deliver(message("dev-1", "cmd/reboot", 2)));

        MqttPublishMessage publish = ch.readOutbound();
        try {
            assertEquals(MqttQoS.AT_LEAST_ONCE, publish.fixedHeader().qosLevel(), "granted 1, message 2");
            assertEquals("cmd/reboot", publish.variableHeader().topicName());
            assertEquals(1, publish.variableHeader().packetId());
            assertFalse(publish.fixedHeader().isRetain());
            assertEquals("to cmd/reboot", publish.payload().toString(StandardCharsets.UTF_8));
        } finally {
            publish.release();
        }
        assertEquals(1.0, sent(1));
    }

    @Test
    void usesTheMessageQosWhenLowerThanGranted() {
        assertEquals(Outcome.DELIVERED, deliver(message("dev-1", "ota/firmware", 1)));
        MqttPublishMessage publish = ch.readOutbound();
        assertEquals(MqttQoS.AT_LEAST_ONCE, publish.fixedHeader().qosLevel());
        publish.release();

        assertEquals(Outcome.DELIVERED, deliver(message("dev-1", "cfg/led", 1)));
        publish = ch.readOutbound();
        assertEquals(MqttQoS.AT_MOST_ONCE, publish.fixedHeader().qosLevel(), "granted 0");
        publish.release();
        assertEquals(1.0, sent(0));
    }

    @Test
    void numbersQos1PublishesWithIncreasingPacketIds() {
        for (int expected = 1; expected <= 3; expected++) {
            assertEquals(Outcome.DELIVERED, deliver(message("dev-1", "cmd/x", 1)));
            MqttPublishMessage publish = ch.readOutbound();
            assertEquals(expected, publish.variableHeader().packetId());
            publish.release();
        }
    }

    @Test
    void packetIdsWrapFrom65535To1() {
        for (int i = 0; i < 65534; i++) {
            context.nextPacketId();
        }
        assertEquals(65535, context.nextPacketId());
        assertEquals(1, context.nextPacketId());
    }

    @Test
    void carriesTheRetainFlag() {
        assertEquals(Outcome.DELIVERED, deliver(new DownlinkMessage("dev-1", "cmd/x", 1, true, new byte[] {1, 2})));
        MqttPublishMessage publish = ch.readOutbound();
        assertTrue(publish.fixedHeader().isRetain());
        publish.release();
    }

    @Test
    void deliversFromAnotherThread() throws Exception {
        CompletableFuture<CompletionStage<Outcome>> handedOver = CompletableFuture.supplyAsync(
                () -> dispatcher.deliver(message("dev-1", "cmd/x", 1)));
        CompletionStage<Outcome> stage = handedOver.get(1, java.util.concurrent.TimeUnit.SECONDS);
        ch.runPendingTasks();
        assertEquals(Outcome.DELIVERED, stage.toCompletableFuture().join());
        MqttPublishMessage publish = ch.readOutbound();
        publish.release();
    }

    @Test
    void reportsNotSubscribedAndWritesNothing() {
        assertEquals(Outcome.NOT_SUBSCRIBED, deliver(message("dev-1", "other/topic", 1)));
        assertEquals(Outcome.NOT_SUBSCRIBED, deliver(message("dev-1", "cfg/a/b", 1)), "+ is one level");
        assertNull(ch.readOutbound());
        assertEquals(0.0, sent(0) + sent(1) + sent(2));
    }

    @Test
    void reportsNotConnectedForAnUnknownDevice() {
        CompletionStage<Outcome> stage = dispatcher.deliver(message("dev-unknown", "cmd/x", 1));
        assertEquals(Outcome.NOT_CONNECTED, stage.toCompletableFuture().getNow(null), "answered at once");
        assertNull(ch.readOutbound());
    }

    @Test
    void reportsNotConnectedForAClosedChannel() {
        ch.close();
        assertEquals(Outcome.NOT_CONNECTED, deliver(message("dev-1", "cmd/x", 1)));
        assertNull(ch.readOutbound());
    }

    @Test
    void reportsNotConnectedBeforeTheSessionIsOpen() {
        EmbeddedChannel connecting = new EmbeddedChannel();
        try {
            ConnectionContext c = new ConnectionContext("tcp");
            c.subscriptions().put("#", 1);
            connecting.attr(ConnectionContext.KEY).set(c);
            registry.register("dev-2", connecting);

            CompletionStage<Outcome> stage = dispatcher.deliver(message("dev-2", "cmd/x", 1));
            connecting.runPendingTasks();
            assertEquals(Outcome.NOT_CONNECTED, stage.toCompletableFuture().join());
            assertNull(connecting.readOutbound());
        } finally {
            connecting.finishAndReleaseAll();
        }
    }

    @Test
    void writesOnTheChannelsEventLoopNotTheCallersThread() {
        CompletionStage<Outcome> stage = dispatcher.deliver(message("dev-1", "cmd/x", 1));
        assertFalse(stage.toCompletableFuture().isDone(), "handed to the event loop");
        assertNull(ch.readOutbound());
        ch.runPendingTasks();
        assertEquals(Outcome.DELIVERED, stage.toCompletableFuture().join());
        MqttPublishMessage publish = ch.readOutbound();
        try {
            assertEquals("to cmd/x", new String(ByteBufUtil.getBytes(publish.payload()), StandardCharsets.UTF_8));
        } finally {
            publish.release();
        }
    }
}
