package io.mqttgw.kafka.downlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.kafka.downlink.client.DownlinkClient;
import io.mqttgw.kafka.downlink.client.OfflinePolicy;
import io.mqttgw.kafka.downlink.client.SendResult;
import io.mqttgw.kafka.testkit.KafkaBroker;
import io.mqttgw.kafka.testkit.SharedKafkaBroker;
import io.mqttgw.kafka.testkit.Records;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Commands produced with DownlinkClient into a real Kafka broker, read by real gateways, received by real devices. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaDownlinkIT {
    @TempDir
    static Path dir;
    @RegisterExtension
    static final SharedKafkaBroker KAFKA = new SharedKafkaBroker();
    static KafkaBroker broker;
    static TestPki pki;

    @BeforeAll
    static void start() throws Exception {
        broker = KAFKA.broker();
        broker.createTopics("device.downlink.dl-one", "device.downlink.dl-fleet", "device.downlink.dl-a",
                "device.downlink.dl-b", "device.downlink.dl-bad", "device.downlink.dl-down", "device.downlink.offline");
        pki = TestPki.create(dir.resolve("pki"));
    }

    static TestGateway gatewayConfig(String node) {
        return TestGateway.tls(pki, dir.resolve(node))
                .with("node.id", node)
                .with("acl.subscribe", "devices/{client-id}/#,fleet/#")
                .with("downlink.source", "kafka")
                .with("downlink.kafka.bootstrap-servers", broker.bootstrapServers())
                .with("downlink.kafka.commit-interval", "100ms");
    }

    /** A connected device whose received PUBLISHes land in {@code inbox}, subscribed (QoS 1) to {@code filters}. */
    static Mqtt3AsyncClient device(Gateway gateway, String id, BlockingQueue<Mqtt3Publish> inbox, String... filters) {
        Mqtt3AsyncClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), id).buildAsync();
        c.connect().join();
        for (String filter : filters) {
            c.subscribeWith().topicFilter(filter).qos(MqttQos.AT_LEAST_ONCE).callback(inbox::add).send().join();
        }
        return c;
    }

    static DownlinkClient client(Function<String, CompletionStage<Optional<Route>>> routes, OfflinePolicy offline) {
        return DownlinkClient.builder()
                .producerProperties(Map.of("bootstrap.servers", broker.bootstrapServers(), "linger.ms", 0))
                .routes(routes).offlinePolicy(offline).build();
    }

    static double outcome(Gateway gateway, String outcome) {
        return gateway.metrics().registry().get("mqttgw.kafka.downlink.outcomes").tag("outcome", outcome).counter()
                .count();
    }

    static void await(String what, BooleanSupplier condition, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    static String text(Mqtt3Publish p) {
        return new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    static String health(Gateway gateway) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gateway.adminPort() + "/health")).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    @Order(1)
    void commandReachesTheSubscribedDeviceAndAnUnsubscribedOneGetsNothing() throws Exception {
        try (Gateway gateway = gatewayConfig("dl-one").start();
             DownlinkClient client = client(id -> gateway.routes().lookup(id), OfflinePolicy.drop())) {
            BlockingQueue<Mqtt3Publish> inbox = new LinkedBlockingQueue<>();
            BlockingQueue<Mqtt3Publish> quietInbox = new LinkedBlockingQueue<>();
            Mqtt3AsyncClient dev = device(gateway, "dev-1", inbox, "devices/dev-1/commands");
            Mqtt3AsyncClient quiet = device(gateway, "dev-quiet", quietInbox);

            SendResult sent = client.send("dev-1", "devices/dev-1/commands", 1,
                    "reboot".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertTrue(sent.sent());
            assertEquals("dl-one", sent.nodeId());
            assertEquals("device.downlink.dl-one", sent.kafkaTopic());
            Mqtt3Publish got = inbox.poll(20, TimeUnit.SECONDS);
            assertTrue(got != null, "the device got the command");
            assertEquals("devices/dev-1/commands", got.getTopic().toString());
            assertEquals("reboot", text(got));
            assertEquals(MqttQos.AT_LEAST_ONCE, got.getQos());
            await("the delivery counted", () -> outcome(gateway, "delivered") == 1, 10);

            assertTrue(client.send("dev-quiet", "devices/dev-quiet/commands", 1, new byte[] {1})
                    .toCompletableFuture().get(20, TimeUnit.SECONDS).sent());
            await("the unsubscribed device's outcome counted", () -> outcome(gateway, "not_subscribed") == 1, 20);
            assertEquals(null, quietInbox.poll(300, TimeUnit.MILLISECONDS), "nothing for an unsubscribed device");

            SendResult offline = client.send("dev-nowhere", "devices/dev-nowhere/commands", 1, new byte[] {1})
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(SendResult.Status.NOT_CONNECTED, offline.status());
            assertTrue(health(gateway).contains("\"status\":\"UP\""), health(gateway));
            assertEquals(null, inbox.poll(200, TimeUnit.MILLISECONDS), "one command, one PUBLISH");
            dev.disconnect().join();
            quiet.disconnect().join();
        }
    }

    @Test
    @Order(2)
    void broadcastReachesEverySubscribedDeviceOnce() throws Exception {
        try (Gateway gateway = gatewayConfig("dl-fleet").start();
             DownlinkClient client = client(id -> gateway.routes().lookup(id), OfflinePolicy.drop())) {
            List<BlockingQueue<Mqtt3Publish>> inboxes = new ArrayList<>();
            List<Mqtt3AsyncClient> devices = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                BlockingQueue<Mqtt3Publish> inbox = new LinkedBlockingQueue<>();
                inboxes.add(inbox);
                devices.add(device(gateway, "fleet-" + i, inbox, "fleet/+/firmware"));
            }
            BlockingQueue<Mqtt3Publish> otherInbox = new LinkedBlockingQueue<>();
            devices.add(device(gateway, "fleet-other", otherInbox, "devices/fleet-other/commands"));

            assertEquals(1, client.broadcast(List.of("dl-fleet"), "fleet/v2/firmware", 1,
                    "fw-2.1".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(20, TimeUnit.SECONDS));
            for (BlockingQueue<Mqtt3Publish> inbox : inboxes) {
                Mqtt3Publish got = inbox.poll(20, TimeUnit.SECONDS);
                assertTrue(got != null, "every subscribed device got the broadcast");
                assertEquals("fleet/v2/firmware", got.getTopic().toString());
                assertEquals("fw-2.1", text(got));
            }
            Thread.sleep(500);
            for (BlockingQueue<Mqtt3Publish> inbox : inboxes) {
                assertTrue(inbox.isEmpty(), "exactly once");
            }
            assertTrue(otherInbox.isEmpty(), "nothing for a device not subscribed to the topic");
            await("the broadcast counted", () -> gateway.metrics().registry()
                    .get("mqttgw.kafka.downlink.broadcasts").counter().count() == 1, 10);
            for (Mqtt3AsyncClient d : devices) {
                d.disconnect().join();
            }
        }
    }

    @Test
    @Order(3)
    void commandGoesToTheTopicOfTheNodeHoldingTheDevice() throws Exception {
        try (Gateway a = gatewayConfig("dl-a").start(); Gateway b = gatewayConfig("dl-b").start();
             DownlinkClient client = client(id -> b.routes().lookup(id), OfflinePolicy.drop())) {
            BlockingQueue<Mqtt3Publish> inbox = new LinkedBlockingQueue<>();
            Mqtt3AsyncClient dev = device(b, "dev-on-b", inbox, "devices/dev-on-b/commands");

            SendResult sent = client.send("dev-on-b", "devices/dev-on-b/commands", 1,
                    "open".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals("dl-b", sent.nodeId());
            assertEquals("device.downlink.dl-b", sent.kafkaTopic());
            Mqtt3Publish got = inbox.poll(20, TimeUnit.SECONDS);
            assertTrue(got != null, "the device on node B got the command");
            assertEquals("open", text(got));
            await("B counted the delivery", () -> outcome(b, "delivered") == 1, 10);
            assertEquals(0, Records.read(broker.bootstrapServers(), "device.downlink.dl-a", 0).size(),
                    "nothing was written for node A");
            assertEquals(0.0, a.metrics().registry().get("mqttgw.kafka.downlink.records.received").counter().count());
            dev.disconnect().join();
        }
    }

    @Test
    @Order(4)
    void skipsAndCountsMalformedRecordsAndCommitsPastThem() throws Exception {
        try (Gateway gateway = gatewayConfig("dl-bad").start();
             KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                     broker.bootstrapServers(), "key.serializer", ByteArraySerializer.class.getName(),
                     "value.serializer", ByteArraySerializer.class.getName()))) {
            BlockingQueue<Mqtt3Publish> inbox = new LinkedBlockingQueue<>();
            Mqtt3AsyncClient dev = device(gateway, "dev-b", inbox, "devices/dev-b/commands");
            byte[] key = "dev-b".getBytes(StandardCharsets.UTF_8);
            ProducerRecord<byte[], byte[]> noTopic = new ProducerRecord<>("device.downlink.dl-bad", 0, key,
                    new byte[] {1});
            ProducerRecord<byte[], byte[]> badQos = new ProducerRecord<>("device.downlink.dl-bad", 0, key,
                    new byte[] {2});
            badQos.headers().add("mqtt.topic", "devices/dev-b/commands".getBytes(StandardCharsets.UTF_8))
                    .add("mqtt.qos", "5".getBytes(StandardCharsets.UTF_8));
            ProducerRecord<byte[], byte[]> good = new ProducerRecord<>("device.downlink.dl-bad", 0, key,
                    "after".getBytes(StandardCharsets.UTF_8));
            good.headers().add("mqtt.topic", "devices/dev-b/commands".getBytes(StandardCharsets.UTF_8));
            raw.send(noTopic).get(20, TimeUnit.SECONDS);
            raw.send(badQos).get(20, TimeUnit.SECONDS);
            raw.send(good).get(20, TimeUnit.SECONDS);

            Mqtt3Publish got = inbox.poll(20, TimeUnit.SECONDS);
            assertTrue(got != null);
            assertEquals("after", text(got), "the good record behind the malformed ones is delivered");
            var registry = gateway.metrics().registry();
            assertEquals(1.0, registry.get("mqttgw.kafka.downlink.malformed").tag("cause", "missing_topic").counter()
                    .count());
            assertEquals(1.0, registry.get("mqttgw.kafka.downlink.malformed").tag("cause", "bad_qos").counter()
                    .count());
            TopicPartition p0 = new TopicPartition("device.downlink.dl-bad", 0);
            try (Admin admin = broker.admin()) {
                await("offsets committed past every record", () -> {
                    try {
                        var o = admin.listConsumerGroupOffsets("mqttgw-downlink-dl-bad").partitionsToOffsetAndMetadata()
                                .get(10, TimeUnit.SECONDS).get(p0);
                        return o != null && o.offset() == 3;
                    } catch (Exception e) {
                        return false;
                    }
                }, 20);
            }
            dev.disconnect().join();
        }
    }

    @Test
    @Order(5)
    void sendsACommandForADeviceOnNoNodeToTheOfflineTopic() throws Exception {
        try (DownlinkClient client = client(id -> CompletableFuture.completedFuture(Optional.empty()),
                OfflinePolicy.produceTo("device.downlink.offline"))) {
            SendResult r = client.send("dev-away", "devices/dev-away/commands", 1,
                    "later".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(SendResult.Status.NOT_CONNECTED, r.status());
            assertTrue(r.offlineQueued());
            var records = Records.read(broker.bootstrapServers(), "device.downlink.offline", 1);
            assertEquals(1, records.size());
            assertEquals("dev-away", new String(records.get(0).key(), StandardCharsets.UTF_8));
            assertEquals("later", new String(records.get(0).value(), StandardCharsets.UTF_8));
        }
    }

    @Test
    @Order(6)
    void reportsDegradedWhileKafkaIsFrozenAndRecovers() throws Exception {
        try (Gateway gateway = gatewayConfig("dl-down").start()) {
            await("downlink up", () -> health(gateway).contains("\"status\":\"UP\""), 20);
            broker.freeze();
            try {
                await("downlink degraded", () -> health(gateway).contains("DEGRADED"), 30);
                assertTrue(health(gateway).contains("kafka downlink"), health(gateway));
            } finally {
                broker.thaw();
            }
            await("downlink up again", () -> health(gateway).contains("\"status\":\"UP\""), 30);
        }
    }
}
