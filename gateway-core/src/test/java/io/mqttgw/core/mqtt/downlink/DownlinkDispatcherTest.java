package io.mqttgw.core.mqtt.downlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.pipeline.EstablishedSessionHandler;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.SessionStore.Append;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.ReferenceCountUtil;
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

class DownlinkDispatcherTest {
    /** Devices' acknowledgements reach their downlink sessions through the established-session handler. */
    private static final EstablishedSessionHandler SESSION = ProtocolFixture.defaultSessionHandler();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final GatewayMetrics metrics = new GatewayMetrics(meters);
    private final ChannelRegistry registry = new ChannelRegistry(4);
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final InMemorySessionStore sessions = new InMemorySessionStore(60_000, 100, 100,
            System::currentTimeMillis);

    private DownlinkDispatcher dispatcher(int maxInflight, int maxQueued, int maxRetries) {
        return new DownlinkDispatcher(registry, new GatewayConfig.Downlink(maxInflight, maxQueued,
                Duration.ofMillis(100), maxRetries, 100_000), metrics, pacer, sessions);
    }

    private EmbeddedChannel device(String clientId, String filter, int grantedQos) {
        return device(clientId, filter, grantedQos, false);
    }

    /** A connected device; a persistent one has its session opened in the store, as CONNECT does. */
    private EmbeddedChannel device(String clientId, String filter, int grantedQos, boolean persistent) {
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession(clientId, ProtocolFixture.route(clientId, 1), null, TopicAcl.ALLOW_ALL, persistent);
        if (persistent) {
            // a device without a certificate: its session lives under its namespaced key
            sessions.open(context.sessionKey(), false, 1);
        }
        return ProtocolFixture.subscribedDevice(SESSION, registry, channels, context, filter,
                io.mqttgw.core.spi.Subscription.ofQos(grantedQos));
    }

    @AfterEach
    void finish() {
        ProtocolFixture.finishDevices(channels);
        pacer.shutdownNow();
    }

    private static DownlinkMessage message(String clientId, String topic, int qos) {
        return new DownlinkMessage(clientId, topic, qos, false, ("to " + topic).getBytes(StandardCharsets.UTF_8));
    }

    /** What the gateway wrote to the device, decoded as the device would. */
    private static List<MqttMessage> written(EmbeddedChannel ch) {
        EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        for (Object out = ch.readOutbound(); out != null; out = ch.readOutbound()) {
            if (out instanceof ByteBuf buf) {
                decoder.writeInbound(buf);
            } else {
                // PUBREL goes out as a message (the encoder sits in the real pipeline)
                EmbeddedChannel encoder = new EmbeddedChannel(io.netty.handler.codec.mqtt.MqttEncoder.INSTANCE);
                encoder.writeOutbound(out);
                decoder.writeInbound((ByteBuf) encoder.readOutbound());
                encoder.finishAndReleaseAll();
            }
        }
        List<MqttMessage> messages = new ArrayList<>();
        for (Object in = decoder.readInbound(); in != null; in = decoder.readInbound()) {
            messages.add((MqttMessage) in);
        }
        decoder.finishAndReleaseAll();
        return messages;
    }

    private static String describe(List<MqttMessage> messages) {
        List<String> out = new ArrayList<>();
        for (MqttMessage m : messages) {
            if (m instanceof MqttPublishMessage p) {
                out.add("PUBLISH " + p.variableHeader().topicName() + " q" + p.fixedHeader().qosLevel().value()
                        + " id" + p.variableHeader().packetId() + (p.fixedHeader().isDup() ? " dup" : "") + " "
                        + p.payload().toString(StandardCharsets.UTF_8));
            } else {
                out.add(m.fixedHeader().messageType() + " id"
                        + ((MqttMessageIdVariableHeader) m.variableHeader()).messageId());
            }
            ReferenceCountUtil.release(m);
        }
        return String.join(", ", out);
    }

    private static MqttMessage ack(MqttMessageType type, int packetId) {
        return new MqttMessage(new MqttFixedHeader(type, false, MqttQoS.AT_MOST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(packetId));
    }

    /** Lets real time pass past the retry interval and the retry wheel tick on the embedded loop. */
    private static void waitForRetry(EmbeddedChannel ch) throws InterruptedException {
        Thread.sleep(130);
        for (int i = 0; i < 3; i++) {
            ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
    }

    @Test
    void deliversQos0AtOnceAndQos1OnlyWhenTheDeviceAcknowledges() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1);
        CompletableFuture<Outcome> q0 = d.deliver(message("dev-1", "devices/dev-1/cfg", 0)).toCompletableFuture();
        CompletableFuture<Outcome> q1 = d.deliver(message("dev-1", "devices/dev-1/cmd", 1)).toCompletableFuture();
        ch.runPendingTasks();
        assertEquals(Outcome.DELIVERED, q0.join());
        assertEquals("PUBLISH devices/dev-1/cfg q0 id-1 to devices/dev-1/cfg, "
                + "PUBLISH devices/dev-1/cmd q1 id1 to devices/dev-1/cmd", describe(written(ch)));
        assertFalse(q1.isDone(), "QoS 1 waits for PUBACK");
        ch.writeInbound(ack(MqttMessageType.PUBACK, 1));
        assertEquals(Outcome.DELIVERED, q1.join());
        assertEquals(2.0, metrics.downlinkOutcomes(Outcome.DELIVERED));
    }

    @Test
    void whileTheChannelIsUnwritableQos0IsDroppedAndQos1WaitsInTheQueueUntilItDrains() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1);
        ch.config().setWriteBufferWaterMark(new io.netty.channel.WriteBufferWaterMark(8, 16));
        ch.write(io.netty.buffer.Unpooled.wrappedBuffer(new byte[32])); // unflushed: the device is not reading
        assertFalse(ch.isWritable());
        CompletableFuture<Outcome> q0 = d.deliver(message("dev-1", "devices/dev-1/cfg", 0)).toCompletableFuture();
        CompletableFuture<Outcome> q1 = d.deliver(message("dev-1", "devices/dev-1/cmd", 1)).toCompletableFuture();
        ch.runPendingTasks();
        assertEquals(Outcome.NOT_WRITABLE, q0.join(), "QoS 0 to an unwritable channel is dropped");
        assertEquals(1.0, metrics.downlinkOutcomes(Outcome.NOT_WRITABLE));
        DownlinkSession session = ConnectionContext.of(ch).downlinkOrNull();
        assertEquals(0, session.inflightCount(), "nothing new goes to the outbound buffer");
        assertEquals(1, session.queued(), "QoS 1 waits in the bounded per-device queue");

        ch.flush();
        ((ByteBuf) ch.readOutbound()).release(); // the device read: the channel drains
        assertTrue(ch.isWritable());
        session.writable(); // what the writability watch does
        assertEquals("PUBLISH devices/dev-1/cmd q1 id1 to devices/dev-1/cmd", describe(written(ch)));
        ch.writeInbound(ack(MqttMessageType.PUBACK, 1));
        assertEquals(Outcome.DELIVERED, q1.join());
    }

    @Test
    void capsTheQosAtTheGrantedOneAndSkipsUnsubscribedAndUnknownDevices() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/cfg", 0);
        CompletableFuture<Outcome> capped = d.deliver(message("dev-1", "devices/dev-1/cfg", 1)).toCompletableFuture();
        CompletableFuture<Outcome> other = d.deliver(message("dev-1", "devices/dev-1/cmd", 1)).toCompletableFuture();
        ch.runPendingTasks();
        assertEquals(Outcome.DELIVERED, capped.join(), "granted QoS 0: sent at QoS 0, done at once");
        assertEquals(Outcome.NOT_SUBSCRIBED, other.join());
        assertEquals(Outcome.NOT_CONNECTED, d.deliver(message("nobody", "x", 1)).toCompletableFuture().join());
        assertEquals("PUBLISH devices/dev-1/cfg q0 id-1 to devices/dev-1/cfg", describe(written(ch)));
    }

    @Test
    void retransmitsWithDupUntilAcknowledgedAndGivesUpAfterTheRetries() throws InterruptedException {
        DownlinkDispatcher d = dispatcher(16, 100, 2);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1);
        CompletableFuture<Outcome> acked = d.deliver(message("dev-1", "devices/dev-1/a", 1)).toCompletableFuture();
        CompletableFuture<Outcome> ignored = d.deliver(message("dev-1", "devices/dev-1/b", 1)).toCompletableFuture();
        ch.runPendingTasks();
        written(ch).forEach(ReferenceCountUtil::release);

        waitForRetry(ch);
        assertEquals("PUBLISH devices/dev-1/a q1 id1 dup to devices/dev-1/a, "
                + "PUBLISH devices/dev-1/b q1 id2 dup to devices/dev-1/b", describe(written(ch)));
        ch.writeInbound(ack(MqttMessageType.PUBACK, 1));
        assertEquals(Outcome.DELIVERED, acked.join());

        waitForRetry(ch);
        assertEquals("PUBLISH devices/dev-1/b q1 id2 dup to devices/dev-1/b", describe(written(ch)),
                "only the unacknowledged one is sent again");
        waitForRetry(ch);
        written(ch).forEach(ReferenceCountUtil::release);
        assertEquals(Outcome.EXPIRED, ignored.join(), "two retries, then given up");
        assertEquals(3.0, metrics.downlinkRetransmissions(), "a once, b twice");
    }

    @Test
    void keepsTheWindowAndQueuesBehindItUpToTheBound() {
        DownlinkDispatcher d = dispatcher(2, 1, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1);
        List<CompletableFuture<Outcome>> sent = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            sent.add(d.deliver(message("dev-1", "devices/dev-1/m" + i, 1)).toCompletableFuture());
        }
        ch.runPendingTasks();
        assertEquals("PUBLISH devices/dev-1/m1 q1 id1 to devices/dev-1/m1, "
                + "PUBLISH devices/dev-1/m2 q1 id2 to devices/dev-1/m2", describe(written(ch)), "a window of two");
        assertEquals(Outcome.QUEUE_FULL, sent.get(3).join(), "one waits in the queue, the fourth is refused");
        ch.writeInbound(ack(MqttMessageType.PUBACK, 1));
        assertEquals("PUBLISH devices/dev-1/m3 q1 id3 to devices/dev-1/m3", describe(written(ch)),
                "an acknowledgement lets the queued one go");
        assertTrue(sent.get(0).isDone() && !sent.get(2).isDone());
    }

    @Test
    void completesQos2AfterPubrecPubrelPubcomp() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 2);
        CompletableFuture<Outcome> q2 = d.deliver(message("dev-1", "devices/dev-1/x", 2)).toCompletableFuture();
        ch.runPendingTasks();
        assertEquals("PUBLISH devices/dev-1/x q2 id1 to devices/dev-1/x", describe(written(ch)));
        ch.writeInbound(ack(MqttMessageType.PUBREC, 1));
        assertEquals("PUBREL id1", describe(written(ch)));
        assertFalse(q2.isDone());
        ch.writeInbound(ack(MqttMessageType.PUBCOMP, 1));
        assertEquals(Outcome.DELIVERED, q2.join());
    }

    @Test
    void completesWhatIsPendingAsNotConnectedWhenTheConnectionEnds() {
        DownlinkDispatcher d = dispatcher(1, 5, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1);
        CompletableFuture<Outcome> inflight = d.deliver(message("dev-1", "devices/dev-1/a", 1)).toCompletableFuture();
        CompletableFuture<Outcome> queued = d.deliver(message("dev-1", "devices/dev-1/b", 1)).toCompletableFuture();
        ch.runPendingTasks();
        written(ch).forEach(ReferenceCountUtil::release);
        ConnectionContext.of(ch).closeDownlink();
        assertEquals(Outcome.NOT_CONNECTED, inflight.join());
        assertEquals(Outcome.NOT_CONNECTED, queued.join());
    }

    @Test
    void broadcastsOneEncodingToEverySubscribedDeviceOnce() throws Exception {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        List<EmbeddedChannel> fleet = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fleet.add(device("dev-" + i, "fleet/+/firmware", 1));
        }
        EmbeddedChannel other = device("dev-x", "devices/dev-x/#", 1);
        CompletableFuture<Integer> handed = d.broadcast(message(null, "fleet/a/firmware", 1)).toCompletableFuture();
        long deadline = System.currentTimeMillis() + 5000;
        while (!handed.isDone() && System.currentTimeMillis() < deadline) {
            channels.forEach(EmbeddedChannel::runPendingTasks);
            Thread.sleep(5);
        }
        assertEquals(5, handed.join());
        for (EmbeddedChannel ch : fleet) {
            assertEquals("PUBLISH fleet/a/firmware q1 id1 to fleet/a/firmware", describe(written(ch)));
        }
        assertEquals("", describe(written(other)), "not subscribed: nothing");
    }

    @Test
    void broadcastReachesTenThousandSimulatedDevicesExactlyOnce() throws Exception {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        int devices = 10_000;
        for (int i = 0; i < devices; i++) {
            device("dev-" + i, "fleet/+/firmware", 0);
        }
        CompletableFuture<Integer> handed = d.broadcast(message(null, "fleet/a/firmware", 0)).toCompletableFuture();
        // generous for a loaded 2-core machine; the test thread runs every channel's tasks, so a join would wait
        // forever once this loop stops: a broadcast that did not finish fails instead of hanging the build
        long deadline = System.currentTimeMillis() + 90_000;
        while (!handed.isDone() && System.currentTimeMillis() < deadline) {
            channels.forEach(EmbeddedChannel::runPendingTasks);
        }
        assertTrue(handed.isDone(), "the broadcast was handed to every device within 90 s");
        assertEquals(devices, handed.getNow(-1));
        int publishes = 0;
        for (EmbeddedChannel ch : channels) {
            List<MqttMessage> got = written(ch);
            assertEquals(1, got.size(), "exactly once");
            publishes += got.size();
            got.forEach(ReferenceCountUtil::release);
        }
        assertEquals(devices, publishes);
        assertEquals(devices, metrics.downlinkOutcomes(Outcome.DELIVERED));
    }

    @Test
    void keepsAnUnacknowledgedMessageOfAPersistentSessionWhenTheConnectionEnds() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1, true);
        CompletableFuture<Outcome> acked = d.deliver(message("dev-1", "devices/dev-1/a", 1)).toCompletableFuture();
        CompletableFuture<Outcome> pending = d.deliver(message("dev-1", "devices/dev-1/b", 1)).toCompletableFuture();
        ch.runPendingTasks();
        assertEquals("PUBLISH devices/dev-1/a q1 id1 to devices/dev-1/a, "
                + "PUBLISH devices/dev-1/b q1 id2 to devices/dev-1/b", describe(written(ch)), "stored, then sent");
        ch.writeInbound(ack(MqttMessageType.PUBACK, 1));
        assertEquals(Outcome.DELIVERED, acked.join());

        ch.close();
        ConnectionContext.of(ch).closeDownlink();
        assertEquals(Outcome.QUEUED, pending.join(), "the session keeps what the device did not acknowledge");
        assertEquals(List.of("devices/dev-1/b"), pendingTopics("dev-1"), "the acknowledged one is gone");
    }

    @Test
    void dropsInFlightMessagesWhenACleanSessionTakesTheClientIdOver() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "devices/dev-1/#", 1, true);
        CompletableFuture<Outcome> pending = d.deliver(message("dev-1", "devices/dev-1/a", 1)).toCompletableFuture();
        ch.runPendingTasks();
        written(ch).forEach(ReferenceCountUtil::release);

        sessions.open(ConnectionContext.of(ch).sessionKey(), true, 2);
        ConnectionContext.of(ch).discardSession();
        ch.close();
        ConnectionContext.of(ch).closeDownlink();
        assertEquals(Outcome.NOT_CONNECTED, pending.join(), "MQTT-3.1.2-6: the old session is discarded");
        assertEquals(Append.NO_SESSION, sessions.append(message("dev-1", "devices/dev-1/b", 1))
                .toCompletableFuture().join());
    }

    @Test
    void queuesForAnOfflinePersistentSessionUpToItsBoundAndNotForOthers() {
        InMemorySessionStore small = new InMemorySessionStore(60_000, 2, 10, System::currentTimeMillis);
        DownlinkDispatcher d = new DownlinkDispatcher(registry, new GatewayConfig.Downlink(16, 100,
                Duration.ofMillis(100), 5, 100_000), metrics, pacer, small);
        small.open("offline-1", false, 7);
        small.disconnected("offline-1", 7);
        assertEquals(Outcome.QUEUED, d.deliver(message("offline-1", "devices/offline-1/a", 1)).toCompletableFuture()
                .join());
        assertEquals(Outcome.QUEUED, d.deliver(message("offline-1", "devices/offline-1/b", 1)).toCompletableFuture()
                .join());
        assertEquals(Outcome.QUEUE_FULL, d.deliver(message("offline-1", "devices/offline-1/c", 1))
                .toCompletableFuture().join(), "session.max-pending is 2");
        assertEquals(Outcome.NOT_CONNECTED, d.deliver(message("offline-1", "devices/offline-1/d", 0))
                .toCompletableFuture().join(), "QoS 0 is not kept");
        assertEquals(Outcome.NOT_CONNECTED, d.deliver(message("never-seen", "devices/never-seen/a", 1))
                .toCompletableFuture().join(), "no persistent session, nothing kept");
        assertEquals(List.of("devices/offline-1/a", "devices/offline-1/b"), small.open("offline-1", false, 8)
                .toCompletableFuture().join().pending().stream().map(m -> m.message().topic()).toList());
    }

    @Test
    void storesARetainedMessageAndDeliversItLiveWithoutTheRetainFlag() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = device("dev-1", "fleet/#", 0);
        DownlinkMessage config = new DownlinkMessage(null, "fleet/a/config", 0, true,
                "v2".getBytes(StandardCharsets.UTF_8));
        assertEquals(1, handOut(d.broadcast(config).toCompletableFuture()));
        List<MqttMessage> out = written(ch);
        assertEquals(1, out.size());
        assertFalse(out.get(0).fixedHeader().isRetain(), "MQTT-3.3.1-9: live delivery clears the flag");
        out.forEach(ReferenceCountUtil::release);
        assertEquals(List.of("fleet/a/config"), sessions.retained("fleet/+/config").toCompletableFuture().join()
                .stream().map(DownlinkMessage::topic).toList());
        assertEquals(1.0, metrics.retainedCount("stored"));

        handOut(d.broadcast(new DownlinkMessage(null, "fleet/a/config", 0, true, new byte[0])).toCompletableFuture());
        written(ch).forEach(ReferenceCountUtil::release);
        assertTrue(sessions.retained("fleet/#").toCompletableFuture().join().isEmpty(), "an empty payload deletes");
    }

    @Test
    void reportsTheRetainedCopyBesideTheOutcomeOfADeliveryToAnOfflineDevice() {
        InMemorySessionStore one = new InMemorySessionStore(60_000, 100, 1, System::currentTimeMillis);
        DownlinkDispatcher d = new DownlinkDispatcher(registry, new GatewayConfig.Downlink(16, 100,
                Duration.ofMillis(100), 5, 100_000), metrics, pacer, one);
        byte[] v2 = "v2".getBytes(StandardCharsets.UTF_8);

        assertEquals(new DownlinkTarget.Report(Outcome.NOT_CONNECTED, DownlinkTarget.Retained.STORED),
                d.deliverReporting(new DownlinkMessage("never-seen", "devices/never-seen/config", 1, true, v2))
                        .toCompletableFuture().join());
        assertEquals(1, one.retained("devices/never-seen/config").toCompletableFuture().join().size());
        assertEquals(new DownlinkTarget.Report(Outcome.NOT_CONNECTED, DownlinkTarget.Retained.REFUSED),
                d.deliverReporting(new DownlinkMessage("never-seen", "devices/never-seen/other", 1, true, v2))
                        .toCompletableFuture().join(), "session.max-retained is 1");
        assertEquals(new DownlinkTarget.Report(Outcome.NOT_CONNECTED, DownlinkTarget.Retained.DELETED),
                d.deliverReporting(new DownlinkMessage("never-seen", "devices/never-seen/config", 1, true,
                        new byte[0])).toCompletableFuture().join());
        assertEquals(new DownlinkTarget.Report(Outcome.NOT_CONNECTED, null),
                d.deliverReporting(new DownlinkMessage("never-seen", "devices/never-seen/config", 1, false, v2))
                        .toCompletableFuture().join(), "no retain flag, nothing to report of it");
        assertEquals(new DownlinkTarget.BroadcastReport(0, DownlinkTarget.Retained.STORED),
                d.broadcastReporting(new DownlinkMessage(null, "fleet/a/config", 1, true, v2)).toCompletableFuture()
                        .join());
    }

    @Test
    void holdsADeliveryUntilThePersistentSessionIsRestored() {
        DownlinkDispatcher d = dispatcher(16, 100, 5);
        EmbeddedChannel ch = new EmbeddedChannel(SESSION);
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, true);
        sessions.open("dev-1", false, 1);
        ch.attr(ConnectionContext.KEY).set(context);
        registry.register("dev-1", ch);
        channels.add(ch);

        CompletableFuture<Outcome> early = d.deliver(message("dev-1", "devices/dev-1/a", 1)).toCompletableFuture();
        ch.runPendingTasks();
        assertFalse(early.isDone(), "waits for the stored subscriptions");
        context.subscriptions(context.subscriptions().with("devices/dev-1/#",
                io.mqttgw.core.spi.Subscription.ofQos(1)));
        context.restored();
        ch.runPendingTasks();
        assertEquals("PUBLISH devices/dev-1/a q1 id1 to devices/dev-1/a", describe(written(ch)));
    }

    /** Runs the devices' loops until the broadcast has been handed to all of them. */
    private int handOut(CompletableFuture<Integer> handed) {
        long deadline = System.currentTimeMillis() + 5000;
        while (!handed.isDone() && System.currentTimeMillis() < deadline) {
            channels.forEach(EmbeddedChannel::runPendingTasks);
            Thread.onSpinWait();
        }
        return handed.getNow(-1);
    }

    /** The pending messages of the session of {@code clientId}, a device without a certificate. */
    private List<String> pendingTopics(String clientId) {
        return sessions.open(IdentityProof.NO_CERTIFICATE.sessionKey(clientId), false,
                99).toCompletableFuture().join().pending().stream()
                .map(m -> m.message().topic()).toList();
    }
}
