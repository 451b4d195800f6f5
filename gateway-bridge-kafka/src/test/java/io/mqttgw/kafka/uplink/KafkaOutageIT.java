package io.mqttgw.kafka.uplink;

import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.kafka.downlink.client.DownlinkClient;
import io.mqttgw.kafka.downlink.client.OfflinePolicy;
import io.mqttgw.kafka.downlink.client.SendResult;
import io.mqttgw.kafka.testkit.KafkaBroker;
import io.mqttgw.kafka.testkit.Records;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka gone for at least a quarter of a minute under QoS 1 load: the only broker is stopped (SIGTERM) while a fleet
 * of mutual-TLS devices keeps publishing, then started again on its data. Nothing is closed by the gateway meanwhile:
 * PUBACKs wait, each device's reading pauses at its window, the sink's pending bytes stay within their bound, a
 * device's keepalive is not held against it while the gateway is the one not reading, and afterwards every PUBACKed
 * message is in Kafka and a downlink record produced during the outage reaches its device.
 *
 * <p>The delivery timeout is set longer than the outage: that is what lets a node ride out an outage without closing
 * devices (a record that times out closes its connection so that the device resends).
 */
class KafkaOutageIT {
    static final String TOPIC = "device.outage";
    static final String NODE = "outage-node";
    static final int DEVICES = 150;
    static final int WINDOW = 4;
    /** Each device sends more than its window, so its reading pauses and the rest waits unread. */
    static final int PER_DEVICE_DURING_OUTAGE = WINDOW + 2;
    /**
     * Three times the producer's request timeout; the paused device is also watched for at least
     * {@link #PAUSED_KEEPALIVES} of its keepalives, however long the fleet took to fill its windows.
     */
    static final long OUTAGE_MILLIS = 15_000;
    /** Keepalives the paused device goes unread: a gateway holding its keepalive against it closes it at 1.5. */
    static final int PAUSED_KEEPALIVES = 3;
    /** The keepalive of the two devices that test it: far shorter than the outage. */
    static final int KEEPALIVE_SECONDS = 4;
    /** Long enough for the whole fleet to connect on a loaded machine before its first PUBLISH. */
    static final int FLEET_KEEPALIVE_SECONDS = 300;
    static final long MAX_PENDING_BYTES = 1 << 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(600)
    void ridesOutAKafkaOutageWithoutClosingDevicesAndLosesNoAcknowledgedMessage() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
            broker.createTopics(TOPIC, "device.downlink." + NODE);
            TestPki pki = TestPki.create(dir.resolve("pki"));
            ExecutorService sender = Executors.newSingleThreadExecutor();
            try (Gateway gateway = OutageUplink.into(TestGateway.tls(pki, dir.resolve("gateway"))
                    .with("node.id", NODE)
                    .with("acl.subscribe", "devices/{client-id}/#")
                    .with("mqtt.max-inflight-uplink", Integer.toString(WINDOW)),
                    broker, TOPIC, MAX_PENDING_BYTES)
                    .with("downlink.source", "kafka")
                    .with("downlink.kafka.bootstrap-servers", broker.bootstrapServers())
                    .with("downlink.kafka.commit-interval", "100ms")
                    .start();
                 DownlinkClient downlink = DownlinkClient.builder()
                         // a business service's producer that waits for Kafka: its metadata may be forgotten while
                         // every broker is stopped, and send() then blocks its thread until the brokers are back
                         .producerProperties(Map.of("bootstrap.servers", broker.bootstrapServers(), "linger.ms", 0,
                                 "request.timeout.ms", 5000, "delivery.timeout.ms", 300_000, "max.block.ms", 300_000))
                         .sendExecutor(sender)
                         .routes(id -> gateway.routes().lookup(id)).offlinePolicy(OfflinePolicy.drop()).build()) {
                BlockingQueue<Mqtt3Publish> inbox = new LinkedBlockingQueue<>();
                Mqtt3AsyncClient commanded = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-commanded")
                        .buildAsync();
                commanded.connect().get(30, TimeUnit.SECONDS);
                commanded.subscribeWith().topicFilter("devices/dev-commanded/#").qos(MqttQos.AT_LEAST_ONCE)
                        .callback(inbox::add).send().get(30, TimeUnit.SECONDS);

                List<Device> fleet = new ArrayList<>();
                for (int i = 0; i < DEVICES; i++) {
                    fleet.add(new Device(pki, gateway, "dev-" + i, FLEET_KEEPALIVE_SECONDS));
                }

                // Kafka up: one acknowledged message each, and a downlink that commits the consumer's position
                for (Device d : fleet) {
                    d.publish();
                }
                for (Device d : fleet) {
                    d.awaitAcks(30_000);
                }
                assertEquals(SendResult.Status.SENT, downlink.send("dev-commanded", "devices/dev-commanded/cmd", 1,
                        utf8("before")).toCompletableFuture().get(30, TimeUnit.SECONDS).status());
                assertEquals("before", text(inbox.poll(30, TimeUnit.SECONDS)));
                Thread.sleep(500); // the consumer commits every 100 ms: its position is stored before Kafka stops

                broker.stop();
                long outageStart = System.nanoTime();
                // two devices with a keepalive far shorter than the outage, connected while Kafka is away
                Device pinging = new Device(pki, gateway, "dev-pinging", KEEPALIVE_SECONDS);
                Device quiet = new Device(pki, gateway, "dev-quiet", KEEPALIVE_SECONDS);
                List<Device> all = new ArrayList<>(fleet);
                all.add(pinging);
                all.add(quiet);
                CompletableFuture<SendResult> duringOutage = downlink.send("dev-commanded",
                        "devices/dev-commanded/cmd", 1, utf8("during")).toCompletableFuture();
                for (Device d : fleet) {
                    for (int k = 0; k < PER_DEVICE_DURING_OUTAGE; k++) {
                        d.publish();
                    }
                }
                for (int k = 0; k < PER_DEVICE_DURING_OUTAGE; k++) {
                    pinging.publish();
                }
                quiet.publish();

                long inflight = (long) DEVICES * WINDOW + WINDOW + 1;
                await("every device's window handed to the sink", () -> {
                    assertEquals(0, disconnects(gateway), closes(gateway));
                    return pending(gateway, "records") == inflight;
                }, 60);
                await("reading paused on every device past its window",
                        () -> gateway.metrics().pausedChannels() == DEVICES + 1, 30);
                double pendingBytes = pending(gateway, "bytes");
                assertTrue(pendingBytes > 0 && pendingBytes <= MAX_PENDING_BYTES,
                        "pending bytes within uplink.kafka.max-pending-bytes: " + pendingBytes);

                // while the gateway does not read a paused device, that device's keepalive is not held against it;
                // a device below its window is still read and its PINGREQ answered at once
                int pingsUnanswered = 0;
                long outageEnd = Math.max(outageStart + TimeUnit.MILLISECONDS.toNanos(OUTAGE_MILLIS),
                        System.nanoTime() + TimeUnit.SECONDS.toNanos((long) PAUSED_KEEPALIVES * KEEPALIVE_SECONDS));
                while (System.nanoTime() - outageEnd < 0) {
                    pinging.ping();
                    pingsUnanswered++;
                    quiet.ping();
                    assertEquals(0xD0, quiet.readPacket(10_000)[0] & 0xFF, "PINGRESP to a device still read");
                    Thread.sleep(KEEPALIVE_SECONDS * 500L);
                }
                for (Device d : all) {
                    assertEquals(0, d.availablePubacks(), d.id + " got no PUBACK while Kafka was away");
                }
                assertEquals(DEVICES + 3, gateway.metrics().channelsOpen(), "no device closed during the outage");
                assertEquals(0, disconnects(gateway), "no disconnect of any reason during the outage");
                assertTrue(pinging.pingresps == 0, "the paused device's PINGREQs wait unread");

                CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> {
                    try {
                        broker.restart();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                // the two short-keepalive devices keep their keepalive through the restart until all is answered
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                while (!(restarted.isDone() && quiet.unacknowledged.isEmpty() && pinging.unacknowledged.isEmpty()
                        && pinging.pingresps >= pingsUnanswered)) {
                    assertTrue(System.nanoTime() < deadline, "PUBACKs and PINGRESPs within 3 min of the restart: "
                            + quiet.unacknowledged + " " + pinging.unacknowledged + " " + pinging.pingresps);
                    pinging.ping();
                    quiet.ping();
                    Thread.sleep(KEEPALIVE_SECONDS * 500L);
                    pinging.availablePubacks();
                    quiet.availablePubacks();
                }
                restarted.join();
                for (Device d : List.of(pinging, quiet)) {
                    d.leave();
                }
                for (Device d : fleet) {
                    d.awaitAcks(120_000);
                }
                assertEquals(0, disconnects(gateway), "no device closed after the outage either");
                await("no channel left paused", () -> gateway.metrics().pausedChannels() == 0, 10);
                assertTrue(gateway.metrics().registry().find("mqttgw.kafka.records.failed").counters().stream()
                        .allMatch(c -> c.count() == 0), "no record failed: the delivery timeout outlasted the outage");

                Mqtt3Publish during = inbox.poll(120, TimeUnit.SECONDS);
                assertTrue(during != null, "the downlink record produced during the outage reached its device");
                assertEquals("during", text(during));
                assertEquals(SendResult.Status.SENT, duringOutage.get(60, TimeUnit.SECONDS).status());

                Set<String> acknowledged = new TreeSet<>();
                for (Device d : all) {
                    acknowledged.addAll(d.acknowledged);
                }
                assertEquals((long) DEVICES * (1 + PER_DEVICE_DURING_OUTAGE) + PER_DEVICE_DURING_OUTAGE + 1,
                        acknowledged.size(), "every message sent was acknowledged in the end");
                Set<String> stored = new HashSet<>();
                for (ConsumerRecord<byte[], byte[]> r : Records.read(broker.bootstrapServers(), TOPIC,
                        acknowledged.size())) {
                    stored.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                Set<String> lost = new TreeSet<>(acknowledged);
                lost.removeAll(stored);
                assertEquals(Set.of(), lost, lost.size() + " PUBACKed messages are not in Kafka");
                for (Device d : all) {
                    d.close();
                }
                commanded.disconnect().get(10, TimeUnit.SECONDS);
            } finally {
                sender.shutdownNow();
            }
        }
    }

    static double pending(Gateway gateway, String what) {
        return gateway.metrics().registry().get("mqttgw.kafka.pending." + what).gauge().value();
    }

    static double disconnects(Gateway gateway) {
        double n = 0;
        for (DisconnectReason r : DisconnectReason.values()) {
            // a device leaving with DISCONNECT is not closed by the gateway
            if (r != DisconnectReason.CLIENT_DISCONNECT) {
                n += gateway.metrics().disconnects(r);
            }
        }
        return n;
    }

    /** The gateway's closes by reason, for a failure message. */
    static String closes(Gateway gateway) {
        StringBuilder b = new StringBuilder("closes by the gateway:");
        for (DisconnectReason r : DisconnectReason.values()) {
            double n = gateway.metrics().disconnects(r);
            if (n > 0) {
                b.append(' ').append(r).append('=').append((long) n);
            }
        }
        return b.toString();
    }

    static String text(Mqtt3Publish p) {
        return p == null ? null : new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    static void await(String what, BooleanSupplier condition, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for: " + what);
            }
            Thread.sleep(50);
        }
    }

    /**
     * A raw MQTT 3.1.1 device over mutual TLS that never reconnects: any close by the gateway fails the test.
     * Publishes QoS 1 to {@code devices/<id>/t} with payload {@code <id>:<packet id>}.
     */
    static final class Device implements AutoCloseable {
        final String id;
        final Gateway gateway;
        final RawMqttConnection connection;
        final Set<Integer> unacknowledged = new TreeSet<>();
        final Set<String> acknowledged = new HashSet<>();
        int nextPacketId = 1;
        int pingresps;

        Device(TestPki pki, Gateway gateway, String id, int keepAliveSeconds) throws IOException {
            this.id = id;
            this.gateway = gateway;
            this.connection = RawMqttConnection.tls(pki.clientContext(pki.device(id)), gateway.tlsPort());
            assertEquals(0, connection.connect(id, keepAliveSeconds));
        }

        void publish() throws IOException {
            publish(0);
        }

        /**
         * With {@code padTo} above 0 the payload is {@code <id>:<packet id>|} padded with dots to that many bytes.
         */
        void publish(int padTo) throws IOException {
            int packetId = nextPacketId++;
            unacknowledged.add(packetId);
            String payload = id + ":" + packetId;
            if (padTo > 0) {
                payload = payload + "|" + ".".repeat(Math.max(0, padTo - payload.length() - 1));
            }
            try {
                connection.send(publishPacket(0x32, utf8("devices/" + id + "/t"), packetId, utf8(payload)));
            } catch (IOException e) {
                throw new AssertionError(id + " closed: " + closes(gateway), e);
            }
        }

        /** Leaves with DISCONNECT, so the gateway's metrics do not count it as closed by the gateway. */
        void leave() throws IOException {
            connection.send(new byte[] {(byte) 0xE0, 0});
        }

        void ping() throws IOException {
            connection.send(new byte[] {(byte) 0xC0, 0});
        }

        byte[] readPacket(long millis) throws IOException {
            connection.socket().setSoTimeout((int) millis);
            try {
                return connection.readPacket();
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                throw new AssertionError(id + " closed: " + closes(gateway), e);
            }
        }

        /** Reads until every PUBLISH sent is acknowledged; a close by the gateway fails the test. */
        void awaitAcks(long millis) throws IOException {
            long deadline = System.currentTimeMillis() + millis;
            while (!unacknowledged.isEmpty()) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new AssertionError(id + ": no PUBACK for " + unacknowledged + " within " + millis + " ms");
                }
                handle(readPacket(left));
            }
        }

        /** PUBACKs that have already arrived, read without waiting for more. */
        int availablePubacks() throws IOException {
            int n = 0;
            while (true) {
                byte[] p;
                try {
                    p = readPacket(20);
                } catch (SocketTimeoutException e) {
                    return n;
                }
                if (handle(p)) {
                    n++;
                }
            }
        }

        private boolean handle(byte[] p) {
            int type = p[0] & 0xFF;
            if (type == 0xD0) {
                pingresps++;
                return false;
            }
            assertEquals(0x40, type, id + ": PUBACK or PINGRESP");
            int packetId = ((p[2] & 0xFF) << 8) | (p[3] & 0xFF);
            assertTrue(unacknowledged.remove(packetId), id + ": PUBACK for a packet in flight");
            acknowledged.add(id + ":" + packetId);
            return true;
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
