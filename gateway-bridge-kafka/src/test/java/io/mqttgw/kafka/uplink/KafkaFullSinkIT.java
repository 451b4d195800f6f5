package io.mqttgw.kafka.uplink;

import static io.mqttgw.kafka.uplink.KafkaOutageIT.closes;
import static io.mqttgw.kafka.uplink.KafkaOutageIT.disconnects;
import static io.mqttgw.kafka.uplink.KafkaOutageIT.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.kafka.testkit.KafkaBroker;
import io.mqttgw.kafka.testkit.Records;
import io.mqttgw.kafka.uplink.KafkaOutageIT.Device;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka away long enough to fill {@code uplink.kafka.max-pending-bytes}, well before any device's window is full:
 * the sink refuses for capacity, and that is backpressure, not a failure. Real mutual-TLS devices stay connected
 * (no {@code sink_failed}), their PUBACKs wait, reading of the refused ones pauses, and once Kafka is back every
 * PUBACKed message is in the topic and later messages are acknowledged as usual.
 */
class KafkaFullSinkIT {
    static final String TOPIC = "device.full";
    static final int DEVICES = 20;
    /** Records of ~{@value #PAYLOAD} B: the smallest bound (64 KiB) holds about 125 of them. */
    static final int PAYLOAD = 400;
    /** Sent by each device while Kafka is away: 200 in all, more than the bound holds, less than a window (32). */
    static final int PER_DEVICE_DURING_OUTAGE = 10;
    static final long MAX_PENDING_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void aFullSinkPausesDevicesInsteadOfClosingThemAndLosesNoAcknowledgedMessage() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
            broker.createTopics(TOPIC);
            TestPki pki = TestPki.create(dir.resolve("pki"));
            try (Gateway gateway = OutageUplink.into(TestGateway.tls(pki, dir.resolve("gateway")),
                    broker, TOPIC, MAX_PENDING_BYTES)
                    .start()) {
                List<Device> fleet = new ArrayList<>();
                for (int i = 0; i < DEVICES; i++) {
                    fleet.add(new Device(pki, gateway, "dev-" + i, 300));
                }
                for (Device d : fleet) {
                    publish(d);
                }
                for (Device d : fleet) {
                    d.awaitAcks(30_000);
                }

                broker.stop();
                for (Device d : fleet) {
                    for (int k = 0; k < PER_DEVICE_DURING_OUTAGE; k++) {
                        publish(d);
                    }
                }
                KafkaOutageIT.await("the sink full and messages held by their connections", () -> {
                    assertEquals(0, disconnects(gateway), closes(gateway));
                    return gateway.metrics().uplinkHeldCount() > 0 && gateway.metrics().pausedChannels() > 0;
                }, 60);
                Thread.sleep(2_000);
                for (Device d : fleet) {
                    assertEquals(0, d.availablePubacks(), d.id + " got no PUBACK while Kafka was away");
                }
                assertEquals(0, disconnects(gateway), "no device closed while the sink was full: " + closes(gateway));
                assertEquals(DEVICES, gateway.metrics().channelsOpen());
                double pendingBytes = pending(gateway, "bytes");
                assertTrue(pendingBytes <= MAX_PENDING_BYTES, "within the bound: " + pendingBytes);

                broker.restart();
                for (Device d : fleet) {
                    d.awaitAcks(120_000);
                }
                // later messages are taken and acknowledged as usual
                for (Device d : fleet) {
                    publish(d);
                }
                for (Device d : fleet) {
                    d.awaitAcks(60_000);
                }
                assertEquals(0, disconnects(gateway), "no device closed: " + closes(gateway));
                KafkaOutageIT.await("no channel left paused", () -> gateway.metrics().pausedChannels() == 0, 30);

                Set<String> acknowledged = new TreeSet<>();
                for (Device d : fleet) {
                    acknowledged.addAll(d.acknowledged);
                }
                assertEquals(DEVICES * (PER_DEVICE_DURING_OUTAGE + 2), acknowledged.size());
                Set<String> stored = new HashSet<>();
                for (ConsumerRecord<byte[], byte[]> r : Records.read(broker.bootstrapServers(), TOPIC,
                        acknowledged.size())) {
                    String v = new String(r.value(), StandardCharsets.UTF_8);
                    stored.add(v.substring(0, v.indexOf('|')));
                }
                Set<String> lost = new TreeSet<>(acknowledged);
                lost.removeAll(stored);
                assertEquals(Set.of(), lost, lost.size() + " PUBACKed messages are not in Kafka");
                for (Device d : fleet) {
                    d.leave();
                    d.close();
                }
            }
        }
    }

    /** A QoS 1 PUBLISH whose payload is {@code <id>:<packet id>|} padded to {@value #PAYLOAD} bytes. */
    private static void publish(Device d) throws java.io.IOException {
        d.publish(PAYLOAD);
    }
}
