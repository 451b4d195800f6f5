package io.mqttgw.kafka.uplink;

import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.kafka.testkit.KafkaBroker;
import io.mqttgw.kafka.testkit.Records;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/** Devices over mutual TLS, through the gateway, into a real Kafka broker that is also stopped and restarted. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaUplinkIT {
    @TempDir
    static Path dir;
    static KafkaBroker broker;
    static TestPki pki;

    @BeforeAll
    static void start() throws Exception {
        broker = KafkaBroker.start(dir.resolve("kafka"));
        broker.createTopics("device.heartbeat", "device.status", "device.uplink", "device.outage", "device.large");
        pki = TestPki.create(dir.resolve("pki"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    static TestGateway gatewayConfig(String name) {
        return TestGateway.tls(pki, dir.resolve(name))
                .with("uplink.sink", "kafka")
                .with("uplink.kafka.bootstrap-servers", broker.bootstrapServers())
                .with("uplink.kafka.topic-rules",
                "devices/{id}/heartbeat=device.heartbeat,devices/+/status=device.status")
                .with("uplink.kafka.linger", "5ms")
                .with("uplink.kafka.request-timeout", "2s")
                .with("uplink.kafka.delivery-timeout", "4s")
                .with("uplink.kafka.warmup-timeout", "20s");
    }

    static Mqtt3AsyncClient device(Gateway gateway, String id) {
        Mqtt3AsyncClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), id).buildAsync();
        c.connect().join();
        return c;
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
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

    static String health(Gateway gateway) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateway.adminPort() + "/health")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    @Order(1)
    void deliversRecordsKeyedByDeviceWithHeadersInPerDeviceOrder() throws Exception {
        try (Gateway gateway = gatewayConfig("order").start()) {
            List<Mqtt3AsyncClient> devices = List.of(device(gateway, "dev-a"), device(gateway, "dev-b"),
                    device(gateway, "dev-c"));
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int seq = 0; seq < 100; seq++) {
                for (Mqtt3AsyncClient d : devices) {
                    String id = d.getConfig().getClientIdentifier().get().toString();
                    acks.add(d.publishWith().topic("devices/" + id + "/heartbeat").qos(MqttQos.AT_LEAST_ONCE)
                            .payload(Integer.toString(seq).getBytes(StandardCharsets.UTF_8)).send());
                }
            }
            acks.add(devices.get(0).publishWith().topic("devices/dev-a/status").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("{\"battery\":97}".getBytes(StandardCharsets.UTF_8)).send());
            acks.add(devices.get(1).publishWith().topic("devices/dev-b/other").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("x".getBytes(StandardCharsets.UTF_8)).send());
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

            List<ConsumerRecord<byte[], byte[]>> heartbeats = Records.read(broker.bootstrapServers(),
                    "device.heartbeat", 300);
            assertEquals(300, heartbeats.size());
            Map<String, Integer> lastSeq = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : heartbeats) {
                String key = new String(r.key(), StandardCharsets.UTF_8);
                int seq = Integer.parseInt(new String(r.value(), StandardCharsets.UTF_8));
                assertEquals(lastSeq.getOrDefault(key, -1) + 1, seq, "records of " + key + " in publish order");
                lastSeq.put(key, seq);
                assertEquals("devices/" + key + "/heartbeat", header(r, "mqtt.topic"));
                assertEquals("1", header(r, "mqtt.qos"));
                assertEquals(key, header(r, "device.id"));
                assertEquals("test-node", header(r, "gateway.node"));
                long receivedAt = Long.parseLong(header(r, "received.at"));
                assertEquals(receivedAt, r.timestamp());
                assertTrue(Math.abs(System.currentTimeMillis() - receivedAt) < 120_000);
            }
            assertEquals(Map.of("dev-a", 99, "dev-b", 99, "dev-c", 99), lastSeq);
            List<ConsumerRecord<byte[], byte[]>> status = Records.read(broker.bootstrapServers(), "device.status", 1);
            assertEquals("{\"battery\":97}", new String(status.get(0).value(), StandardCharsets.UTF_8));
            List<ConsumerRecord<byte[], byte[]>> other = Records.read(broker.bootstrapServers(), "device.uplink", 1);
            assertEquals("devices/dev-b/other", header(other.get(0), "mqtt.topic"));
            assertTrue(health(gateway).contains("\"status\":\"UP\""));
            for (Mqtt3AsyncClient d : devices) {
                d.disconnect().join();
            }
        }
    }

    @Test
    @Order(2)
    void withholdsAcknowledgementsWhileKafkaIsDownAndLosesNoAcknowledgedMessage() throws Exception {
        try (Gateway gateway = gatewayConfig("outage").with("uplink.kafka.default-topic", "device.outage")
                .with("mqtt.max-inflight-uplink", "8").start()) {
            try (ResendingDevice device = new ResendingDevice(gateway, "dev-outage")) {
                device.publish(1);
                device.readAcks(5000);
                assertEquals(Set.of(1), device.acknowledged);

                // Kafka slow: the broker is frozen, its connections stay open, nothing is acknowledged
                broker.freeze();
                try {
                    for (int id = 2; id <= 30; id++) {
                        device.publish(id);
                    }
                    assertEquals(0, device.readAcks(1500), "no PUBACK while Kafka does not answer");
                    await("reading of the device paused at its window of 8",
                            () -> gateway.metrics().pausedChannels() == 1, 5);
                    double pending = gateway.metrics().registry().get("mqttgw.kafka.pending.bytes").gauge().value();
                    assertTrue(pending > 0 && pending <= 48L << 20, "pending bytes bounded: " + pending);
                    await("health reports Kafka degraded", () -> healthSays(gateway, "DEGRADED"), 15);
                } finally {
                    broker.thaw();
                }

                // Kafka stopped and started again: records fail after the delivery timeout, which closes the
                // connection (sink_failed); the device reconnects and resends what was not acknowledged
                broker.kill();
                try {
                    for (int id = 31; id <= 40; id++) {
                        device.publish(id);
                    }
                    device.readAcks(1500);
                } finally {
                    broker.restart();
                }
                long deadline = System.currentTimeMillis() + 60_000;
                int id = 40;
                while ((!device.unacknowledged.isEmpty() || device.acknowledged.stream().noneMatch(a -> a > 40))
                        && System.currentTimeMillis() < deadline) {
                    if (device.acknowledged.stream().noneMatch(a -> a > 40)) {
                        device.publish(++id);
                    }
                    device.readAcks(200);
                }
                assertEquals(Set.of(), device.unacknowledged.keySet(), "every message acknowledged in the end");
                assertTrue(gateway.metrics().disconnects(DisconnectReason.SINK_FAILED) > 0,
                        "failed records closed the connection so that the device resent them");
                assertTrue(device.reconnects > 0);
                await("health back to UP", () -> healthSays(gateway, "UP"), 15);
                await("no channel left paused", () -> gateway.metrics().pausedChannels() == 0, 5);
                Set<String> inKafka = new HashSet<>();
                Records.read(broker.bootstrapServers(), "device.outage", device.acknowledged.size())
                        .forEach(r -> inKafka.add(new String(r.value(), StandardCharsets.UTF_8)));
                for (int acked : device.acknowledged) {
                    assertTrue(inKafka.contains("m" + acked), "acknowledged m" + acked + " is in Kafka");
                }
            }
            assertTrue(gateway.metrics().registry().get("mqttgw.kafka.records.failed").tag("cause", "timeout")
                    .counter().count() > 0, "the outage's failures are counted");
        }
    }

    /**
     * A device as MQTT 3.1.1 has it: every QoS 1 PUBLISH stays unacknowledged until its PUBACK, and once the
     * connection is closed the device reconnects and resends them all (DUP). Publishes to
     * {@code devices/<id>/t}, payload {@code m<packet id>}.
     */
    static final class ResendingDevice implements AutoCloseable {
        final Gateway gateway;
        final String clientId;
        final java.util.TreeMap<Integer, byte[]> unacknowledged = new java.util.TreeMap<>();
        final Set<Integer> acknowledged = new HashSet<>();
        int reconnects;
        RawMqttConnection connection;

        ResendingDevice(Gateway gateway, String clientId) throws Exception {
            this.gateway = gateway;
            this.clientId = clientId;
            connect();
        }

        private void connect() throws Exception {
            connection = RawMqttConnection.tls(pki.clientContext(pki.device(clientId)), gateway.tlsPort());
            assertEquals(0, connection.connect(clientId, 300));
            try {
                for (Map.Entry<Integer, byte[]> e : unacknowledged.entrySet()) {
                    connection.send(publishPacket(0x3A, utf8("devices/" + clientId + "/t"), e.getKey(),
                            e.getValue()));
                }
            } catch (java.io.IOException closed) {
                // closed again (a resent record failed while Kafka is still away): the next read reconnects
            }
        }

        private void reconnect() throws Exception {
            connection.close();
            reconnects++;
            connect();
        }

        void publish(int packetId) throws Exception {
            byte[] payload = utf8("m" + packetId);
            unacknowledged.put(packetId, payload);
            try {
                connection.send(publishPacket(0x32, utf8("devices/" + clientId + "/t"), packetId, payload));
            } catch (java.io.IOException closed) {
                reconnect();
            }
        }

        /** Reads PUBACKs for up to {@code millis}, reconnecting when the gateway closed; returns how many came. */
        int readAcks(long millis) throws Exception {
            int n = 0;
            long deadline = System.currentTimeMillis() + millis;
            while (System.currentTimeMillis() < deadline) {
                connection.socket().setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
                try {
                    int id = pubackId(connection.readPacket());
                    unacknowledged.remove(id);
                    acknowledged.add(id);
                    n++;
                } catch (java.net.SocketTimeoutException e) {
                    break;
                } catch (java.io.IOException closed) {
                    reconnect();
                }
            }
            return n;
        }

        @Override
        public void close() throws Exception {
            connection.close();
        }
    }

    static boolean healthSays(Gateway gateway, String status) {
        try {
            return health(gateway).contains("\"status\":\"" + status + "\"");
        } catch (Exception e) {
            return false;
        }
    }

    static int pubackId(byte[] packet) {
        assertEquals(0x40, packet[0] & 0xFF, "PUBACK");
        return ((packet[2] & 0xFF) << 8) | (packet[3] & 0xFF);
    }

    @Test
    @Order(3)
    void anUnknownTopicOrAnOversizedRecordClosesItsConnectionAndTheNextConnectionGoesOn() throws Exception {
        try (Gateway gateway = gatewayConfig("refusals")
                .with("uplink.kafka.topic-rules", "devices/+/ghost=device.ghost,devices/+/heartbeat=device.large")
                .with("uplink.kafka.warmup-timeout", "1s")
                .with("uplink.kafka.producer.max.request.size", "2048").start()) {
            try (RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-r")),
                    gateway.tlsPort())) {
                assertEquals(0, device.connect("dev-r", 60));
                device.send(publishPacket(0x32, utf8("devices/dev-r/ghost"), 1, utf8("to nowhere")));
                assertTrue(device.closedWithin(10_000), "not acknowledged: closed for the device to resend");
            }
            try (RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-r")),
                    gateway.tlsPort())) {
                assertEquals(0, device.connect("dev-r", 60));
                device.send(publishPacket(0x32, utf8("devices/dev-r/heartbeat"), 2, new byte[4096]));
                assertTrue(device.closedWithin(10_000), "not acknowledged: closed for the device to resend");
            }
            try (RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-r")),
                    gateway.tlsPort())) {
                assertEquals(0, device.connect("dev-r", 60));
                device.send(publishPacket(0x32, utf8("devices/dev-r/heartbeat"), 3, utf8("fits")));
                assertEquals(3, pubackId(device.readPacket()), "the next connection goes on");
            }
            await("both closes counted", () -> gateway.metrics().disconnects(DisconnectReason.SINK_FAILED) == 2, 10);
            var registry = gateway.metrics().registry();
            assertTrue(registry.get("mqttgw.kafka.records.failed").tag("cause", "metadata_unavailable").counter()
                    .count() >= 1);
            assertTrue(registry.get("mqttgw.kafka.records.failed").tag("cause", "record_too_large").counter()
                    .count() >= 1);
        }
    }
}
