package io.mqttgw.kafka.uplink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.kafka.testkit.KafkaCluster;
import io.mqttgw.kafka.testkit.Records;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Nothing acknowledged is lost" with the default settings when the partition leader dies: a 3-node KRaft cluster,
 * the topic replicated three times with min.insync.replicas 2, devices publishing QoS 1 through the gateway while
 * the leader is killed (SIGKILL). Every message the gateway PUBACKed must be in Kafka afterwards.
 *
 * <p>Just before the leader dies its followers are frozen (SIGSTOP) for about two seconds, well within
 * {@code replica.lag.time.max.ms}, so they stay in sync and one of them takes over, but without the records that came
 * meanwhile: a leader-only acknowledgement ({@code uplink.kafka.acks: 1}) has PUBACKed those, and the failover loses
 * them. With the default {@code acks: all} their PUBACK waits for the followers; the device gets it (or resends)
 * once the new leader has the record, and this test holds.
 */
class KafkaLeaderFailoverIT {
    static final String TOPIC = "device.failover";
    static final int DEVICES = 10;

    @TempDir
    Path dir;

    @Test
    void everyPubackedMessageIsInKafkaAfterThePartitionLeaderIsKilled() throws Exception {
        try (KafkaCluster kafka = KafkaCluster.start(dir.resolve("kafka"), 3)) {
            kafka.createTopic(TOPIC, 1, 2);
            Gateway gateway = TestGateway.tcp(dir.resolve("gateway"))
                    .with("uplink.sink", "kafka")
                    .with("uplink.kafka.bootstrap-servers", kafka.bootstrapServers())
                    .with("uplink.kafka.default-topic", TOPIC)
                    .with("uplink.kafka.linger", "5ms")
                    .with("uplink.kafka.request-timeout", "5s")
                    .with("uplink.kafka.delivery-timeout", "30s")
                    .with("uplink.kafka.warmup-timeout", "30s")
                    .start();
            List<Mqtt3AsyncClient> devices = new ArrayList<>();
            try {
                for (int i = 0; i < DEVICES; i++) {
                    // a device that lost its connection reconnects and resends what was not acknowledged
                    Mqtt3AsyncClient d = Mqtt3Client.builder().identifier("dev-" + i).serverHost("127.0.0.1")
                            .serverPort(gateway.tcpPort()).automaticReconnect()
                            .initialDelay(100, TimeUnit.MILLISECONDS).maxDelay(2, TimeUnit.SECONDS)
                            .applyAutomaticReconnect().buildAsync();
                    d.connectWith().cleanSession(false).send().get(15, TimeUnit.SECONDS);
                    devices.add(d);
                }
                int leader = kafka.leaderOf(TOPIC, 0);
                assertTrue(leader > 0, "the partition has a leader");

                Set<String> acknowledged = ConcurrentHashMap.newKeySet();
                List<CompletableFuture<?>> sent = new ArrayList<>();
                List<Integer> followers = new ArrayList<>(kafka.nodeIds());
                followers.remove(Integer.valueOf(leader));
                int rounds = 150;
                int freezeAt = 50;
                int killAt = 100;
                for (int round = 0; round < rounds; round++) {
                    if (round == freezeAt) {
                        for (int f : followers) {
                            kafka.freeze(f);
                        }
                    } else if (round == killAt) {
                        Thread.sleep(500); // a leader-only acknowledgement reaches the device meanwhile
                        kafka.kill(leader);
                        for (int f : followers) {
                            kafka.thaw(f);
                        }
                    }
                    for (int i = 0; i < DEVICES; i++) {
                        String payload = "dev-" + i + ":" + round;
                        sent.add(devices.get(i).publishWith().topic("devices/dev-" + i + "/status")
                                .qos(MqttQos.AT_LEAST_ONCE).payload(payload.getBytes(StandardCharsets.UTF_8)).send()
                                .whenComplete((ack, error) -> {
                                    if (error == null) {
                                        acknowledged.add(payload);
                                    }
                                }));
                    }
                    Thread.sleep(20);
                }
                // wait for what is still in flight: acknowledged, or given up by the device
                try {
                    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // a publish that failed was not acknowledged, which is all this test asks of it
                }
                int afterKill = 0;
                for (String p : acknowledged) {
                    if (Integer.parseInt(p.substring(p.indexOf(':') + 1)) >= freezeAt) {
                        afterKill++;
                    }
                }
                assertTrue(afterKill > 0, "the gateway acknowledged messages sent while the followers were frozen or "
                        + "after the leader died");

                Set<String> stored = new HashSet<>();
                for (ConsumerRecord<byte[], byte[]> r : Records.read(kafka.bootstrapServers(), TOPIC,
                        acknowledged.size())) {
                    stored.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                Set<String> lost = new TreeSet<>(acknowledged);
                lost.removeAll(stored);
                assertEquals(Set.of(), lost, lost.size() + " of " + acknowledged.size()
                        + " PUBACKed messages are not in Kafka after the leader (node " + leader + ") died");
            } finally {
                for (Mqtt3AsyncClient d : devices) {
                    d.disconnect();
                }
                gateway.close();
            }
        }
    }
}
