package io.mqttgw.core.mqtt.downlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.defaults.InMemoryRouteStore;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.pipeline.EstablishedSessionHandler;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.testkit.InertRouteStore;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where a message for a device goes when the device is not connected to this node: to the node the route table names
 * (its answer is the outcome), or, when no other node holds it or the holder does not take it, into the device's
 * persistent session here, as on a node alone.
 */
class DownlinkFleetHandOffTest {
    private static final EstablishedSessionHandler SESSION = ProtocolFixture.defaultSessionHandler();
    private static final String HERE = "node-a";
    private static final String HOLDER = "node-b";

    private final GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
    private final ChannelRegistry registry = new ChannelRegistry(4);
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final InMemorySessionStore sessions = new InMemorySessionStore(60_000, 100, 100,
            System::currentTimeMillis);
    private final InMemoryRouteStore routes = new InMemoryRouteStore(HERE);
    private final FakeForwarding forwarding = new FakeForwarding();

    @AfterEach
    void finish() {
        ProtocolFixture.finishDevices(channels);
        pacer.shutdownNow();
    }

    private DownlinkDispatcher dispatcher(RouteStore table) {
        return new DownlinkDispatcher(registry, new GatewayConfig.Downlink(16, 100, Duration.ofMillis(100), 5,
                100_000), metrics, pacer, sessions, TopicLimits.DEFAULT,
                new FleetHandOff(HERE, table, forwarding, Duration.ofSeconds(5), Duration.ofSeconds(5), metrics));
    }

    private DownlinkDispatcher dispatcher() {
        return dispatcher(routes);
    }

    /** A persistent session that is offline here, as one whose device reconnected to another node leaves it. */
    private void offlineSession(String clientId) {
        sessions.open(clientId, false, 7).toCompletableFuture().join();
        sessions.disconnected(clientId, 7).toCompletableFuture().join();
    }

    private List<String> storedFor(String clientId) {
        return sessions.open(clientId, false, 8).toCompletableFuture().join().pending().stream()
                .map(m -> m.message().topic()).toList();
    }

    private void routeTo(String clientId, String nodeId) {
        routes.put(new Route(clientId, nodeId, 1, 0, "elsewhere"));
    }

    private static DownlinkMessage message(String clientId, String topic, int qos) {
        return new DownlinkMessage(clientId, topic, qos, false, ("to " + topic).getBytes(StandardCharsets.UTF_8));
    }

    private static Outcome outcome(CompletionStage<Outcome> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void handsAMessageForADeviceAnotherNodeHoldsToThatNodeAndAnswersWithItsOutcome() throws Exception {
        offlineSession("dev-moved");
        routeTo("dev-moved", HOLDER);
        forwarding.answer = m -> CompletableFuture.completedFuture(new OperationForwarding.Forwarded<>(HOLDER,
                new DownlinkTarget.Report(Outcome.DELIVERED, null)));

        assertEquals(Outcome.DELIVERED, outcome(dispatcher().deliver(message("dev-moved", "devices/dev-moved/c", 1))));
        assertEquals(Outcome.DELIVERED, outcome(dispatcher().deliver(message("dev-moved", "devices/dev-moved/q0",
                0))), "QoS 0, refused here as not connected, reaches the device where it is too");

        assertEquals(List.of(HOLDER + " devices/dev-moved/c q1", HOLDER + " devices/dev-moved/q0 q0"),
                forwarding.requests);
        assertEquals(List.of(), storedFor("dev-moved"), "given to the holder, not kept here as well");
        assertEquals(2.0, metrics.downlinkMovedCount("forwarded"));
        assertEquals(0.0, metrics.downlinkOutcomes(Outcome.DELIVERED), "the holder counts what it delivered");
    }

    @Test
    void keepsTheMessageInTheSessionWhenTheHolderDoesNotTakeIt() throws Exception {
        offlineSession("dev-moved");
        routeTo("dev-moved", HOLDER);
        List<Function<DownlinkMessage, CompletionStage<OperationForwarding.Forwarded<DownlinkTarget.Report>>>>
                refusals = List.of(
                        m -> CompletableFuture.failedFuture(new OperationForwarding.Unreachable("found dead")),
                        m -> CompletableFuture.failedFuture(new OperationForwarding.Busy("busy")),
                        m -> CompletableFuture.failedFuture(new TimeoutException("no answer")),
                        m -> CompletableFuture.completedFuture(new OperationForwarding.Forwarded<>(HOLDER, null)),
                        m -> {
                            throw new IllegalStateException("not subscribed yet");
                        });
        DownlinkDispatcher d = dispatcher();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < refusals.size(); i++) {
            forwarding.answer = refusals.get(i);
            String topic = "devices/dev-moved/" + i;
            sent.add(topic);
            assertEquals(Outcome.QUEUED, outcome(d.deliver(message("dev-moved", topic, 1))), "refusal " + i);
        }
        assertEquals(refusals.size(), forwarding.requests.size(), "each one was offered to the holder first");
        assertEquals(sent, storedFor("dev-moved"), "never lost: kept for the device's next session");
        assertEquals(refusals.size(), metrics.downlinkMovedCount("fallback"));
    }

    @Test
    void handOffsTakeAtMostHalfOfTheForwardingsRequestsInFlightSoOperatorsKeepTheOtherHalf() throws Exception {
        offlineSession("dev-moved");
        routeTo("dev-moved", HOLDER);
        forwarding.maxInFlight = 4;
        List<CompletableFuture<OperationForwarding.Forwarded<DownlinkTarget.Report>>> unanswered =
                new CopyOnWriteArrayList<>();
        forwarding.answer = m -> {
            CompletableFuture<OperationForwarding.Forwarded<DownlinkTarget.Report>> f = new CompletableFuture<>();
            unanswered.add(f);
            return f;
        };
        DownlinkDispatcher d = dispatcher();
        CompletionStage<Outcome> first = d.deliver(message("dev-moved", "devices/dev-moved/1", 1));
        CompletionStage<Outcome> second = d.deliver(message("dev-moved", "devices/dev-moved/2", 1));
        assertEquals(Outcome.QUEUED, outcome(d.deliver(message("dev-moved", "devices/dev-moved/3", 1))),
                "a third while two wait for their holder: kept here, not offered");
        assertEquals(2, forwarding.requests.size());
        for (CompletableFuture<OperationForwarding.Forwarded<DownlinkTarget.Report>> f : unanswered) {
            f.complete(new OperationForwarding.Forwarded<>(HOLDER, new DownlinkTarget.Report(Outcome.DELIVERED,
                    null)));
        }
        assertEquals(Outcome.DELIVERED, outcome(first));
        assertEquals(Outcome.DELIVERED, outcome(second));
        forwarding.answer = m -> CompletableFuture.completedFuture(new OperationForwarding.Forwarded<>(HOLDER,
                new DownlinkTarget.Report(Outcome.DELIVERED, null)));
        assertEquals(Outcome.DELIVERED, outcome(d.deliver(message("dev-moved", "devices/dev-moved/4", 1))),
                "offered again once the others were answered");
        assertEquals(List.of("devices/dev-moved/3"), storedFor("dev-moved"));
    }

    @Test
    void keepsTheMessageHereWithoutForwardingWhenNoOtherNodeHoldsTheDevice() throws Exception {
        offlineSession("dev-away");
        offlineSession("dev-stale");
        routeTo("dev-stale", HERE);
        DownlinkDispatcher d = dispatcher();

        assertEquals(Outcome.QUEUED, outcome(d.deliver(message("dev-away", "devices/dev-away/a", 1))), "no route");
        assertEquals(Outcome.QUEUED, outcome(d.deliver(message("dev-stale", "devices/dev-stale/a", 1))),
                "a route naming this node");
        assertEquals(Outcome.NOT_CONNECTED, outcome(d.deliver(message("dev-away", "devices/dev-away/b", 0))));
        assertEquals(List.of(), forwarding.requests);
        assertEquals(List.of("devices/dev-away/a"), storedFor("dev-away"));
        assertEquals(0.0, metrics.downlinkMovedCount("fallback"));
    }

    @Test
    void keepsTheMessageHereWhenTheRouteTableDoesNotAnswer() throws Exception {
        offlineSession("dev-moved");
        RouteStore failing = lookingUp(id -> CompletableFuture.failedFuture(
                new IllegalStateException("redis route table not connected")));
        RouteStore silent = lookingUp(id -> new CompletableFuture<>());
        assertEquals(Outcome.QUEUED, outcome(dispatcher(failing).deliver(message("dev-moved", "devices/dev-moved/a",
                1))));
        DownlinkDispatcher slow = new DownlinkDispatcher(registry, new GatewayConfig.Downlink(16, 100,
                Duration.ofMillis(100), 5, 100_000), metrics, pacer, sessions, TopicLimits.DEFAULT,
                new FleetHandOff(HERE, silent, forwarding, Duration.ofSeconds(5), Duration.ofMillis(50), metrics));
        assertEquals(Outcome.QUEUED, outcome(slow.deliver(message("dev-moved", "devices/dev-moved/b", 1))),
                "a lookup that never answers is bounded");
        assertEquals(List.of("devices/dev-moved/a", "devices/dev-moved/b"), storedFor("dev-moved"));
        assertEquals(2.0, metrics.downlinkMovedCount("fallback"));
    }

    @Test
    void deliversToADeviceConnectedHereWhateverTheRouteTableSays() throws Exception {
        routeTo("dev-1", HOLDER);
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, false);
        EmbeddedChannel ch = ProtocolFixture.subscribedDevice(SESSION, registry, channels, context, "devices/dev-1/#",
                Subscription.ofQos(1));
        CompletableFuture<Outcome> sent = dispatcher().deliver(message("dev-1", "devices/dev-1/cmd", 1))
                .toCompletableFuture();
        ch.runPendingTasks();
        int written = 0;
        for (Object out = ch.readOutbound(); out != null; out = ch.readOutbound()) {
            written++;
            ReferenceCountUtil.release(out);
        }
        assertEquals(1, written);
        ch.writeInbound(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE,
                false, 2), MqttMessageIdVariableHeader.from(1)));
        assertEquals(Outcome.DELIVERED, sent.get(10, TimeUnit.SECONDS));
        assertEquals(List.of(), forwarding.requests);
    }

    @Test
    void theHoldersOwnViewNeverHandsAMessageOn() throws Exception {
        offlineSession("dev-moved");
        routeTo("dev-moved", HOLDER);
        DownlinkTarget here = dispatcher().here();

        assertEquals(Outcome.QUEUED, outcome(here.deliver(message("dev-moved", "devices/dev-moved/a", 1))));
        assertEquals(new DownlinkTarget.Report(Outcome.QUEUED, null), here.deliverReporting(
                message("dev-moved", "devices/dev-moved/b", 1)).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals(List.of(), forwarding.requests, "a forwarded message stops at the node it was sent to");
        assertTrue(storedFor("dev-moved").containsAll(List.of("devices/dev-moved/a", "devices/dev-moved/b")));
    }

    /** A route table that answers every lookup with {@code lookup}. */
    private static RouteStore lookingUp(Function<String, CompletionStage<Optional<Route>>> lookup) {
        return new InertRouteStore() {
            @Override
            public CompletionStage<Optional<Route>> lookup(String clientId) {
                return lookup.apply(clientId);
            }
        };
    }

    /** Records what it is asked to forward and answers as told. */
    private static final class FakeForwarding implements OperationForwarding {
        final List<String> requests = new CopyOnWriteArrayList<>();
        volatile Function<DownlinkMessage, CompletionStage<Forwarded<DownlinkTarget.Report>>> answer =
                m -> CompletableFuture.failedFuture(new AssertionError("not expected to forward"));
        volatile int maxInFlight = Integer.MAX_VALUE;
        private long ids;

        @Override
        public void serve(Holder node) {
        }

        @Override
        public int maxInFlight() {
            return maxInFlight;
        }

        @Override
        public synchronized long newCorrelationId() {
            return ++ids;
        }

        @Override
        public CompletionStage<Forwarded<DownlinkTarget.Report>> downlink(String nodeId, long correlationId,
                                                                          DownlinkMessage message, Duration timeout) {
            requests.add(nodeId + " " + message.topic() + " q" + message.qos());
            return answer.apply(message);
        }

        @Override
        public CompletionStage<Forwarded<Kick>> kick(String nodeId, long correlationId, String clientId,
                                                     boolean discardSession, Duration timeout) {
            throw new UnsupportedOperationException();
        }
    }
}
