package io.mqttgw.kafka.downlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class KafkaDownlinkSourceTest {
    private static final String TOPIC = "device.downlink.n1";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final FakeTarget target = new FakeTarget();
    private long nextOffset;

    /** Deliveries and broadcasts the test completes by hand, as the gateway's event loops would. */
    static final class FakeTarget implements DownlinkTarget {
        final List<DownlinkMessage> messages = new ArrayList<>();
        final List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
        final List<DownlinkMessage> broadcasts = new ArrayList<>();
        final List<CompletableFuture<Integer>> broadcastCounts = new ArrayList<>();

        @Override
        public synchronized CompletionStage<Outcome> deliver(DownlinkMessage message) {
            messages.add(message);
            CompletableFuture<Outcome> f = new CompletableFuture<>();
            outcomes.add(f);
            return f;
        }

        @Override
        public synchronized CompletionStage<Integer> broadcast(DownlinkMessage message) {
            broadcasts.add(message);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            broadcastCounts.add(f);
            return f;
        }
    }

    private KafkaDownlinkSource source(int maxInFlight) {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        KafkaDownlinkSource source = new KafkaDownlinkSource(consumer, TOPIC, maxInFlight, Duration.ofMillis(10),
                meters, null);
        source.attach(target);
        source.step(); // finds and assigns the partition
        return source;
    }

    private void record(String key, String... headers) {
        consumer.addRecord(record(nextOffset++, key, headers));
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String key, String... headers) {
        RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < headers.length; i += 2) {
            h.add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return new ConsumerRecord<>(TOPIC, 0, offset, System.currentTimeMillis(),
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, -1, -1,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), "cmd".getBytes(StandardCharsets.UTF_8), h,
                java.util.Optional.empty());
    }

    private void command(String clientId) {
        record(clientId, "mqtt.topic", "devices/" + clientId + "/commands");
    }

    private double outcome(String name) {
        return meters.get("mqttgw.kafka.downlink.outcomes").tag("outcome", name).counter().count();
    }

    /** Takes a turn past the commit interval and answers the committed offset. */
    private Long committed(KafkaDownlinkSource source) throws InterruptedException {
        Thread.sleep(15);
        source.step();
        OffsetAndMetadata o = consumer.committed(Set.of(P0)).get(P0);
        return o == null ? null : o.offset();
    }

    @Test
    void handsEachRecordToTheGatewayAndCountsTheOutcome() {
        KafkaDownlinkSource source = source(10);
        command("dev-1");
        record("dev-2", "mqtt.topic", "devices/dev-2/commands", "mqtt.qos", "0", "mqtt.retain", "true");
        source.step();
        assertEquals(2, target.messages.size());
        assertEquals("dev-1", target.messages.get(0).clientId());
        assertEquals("devices/dev-1/commands", target.messages.get(0).topic());
        assertEquals(0, target.messages.get(1).qos());
        assertTrue(target.messages.get(1).retain());
        assertEquals(2, source.inFlight());
        target.outcomes.get(0).complete(DownlinkTarget.Outcome.DELIVERED);
        target.outcomes.get(1).complete(DownlinkTarget.Outcome.NOT_SUBSCRIBED);
        assertEquals(0, source.inFlight());
        assertEquals(1.0, outcome("delivered"));
        assertEquals(1.0, outcome("not_subscribed"));
        assertEquals(2.0, meters.get("mqttgw.kafka.downlink.records.received").counter().count());
        assertEquals(1, meters.get("mqttgw.kafka.downlink.latency").timer().count());
    }

    @Test
    void broadcastsAStarRecordAndCountsItsReceivers() {
        KafkaDownlinkSource source = source(10);
        record("*", "mqtt.topic", "fleet/firmware");
        source.step();
        assertEquals(1, target.broadcasts.size());
        assertEquals("fleet/firmware", target.broadcasts.get(0).topic());
        assertTrue(target.messages.isEmpty());
        target.broadcastCounts.get(0).complete(3);
        assertEquals(3.0, meters.get("mqttgw.kafka.downlink.broadcast.receivers").counter().count());
        assertEquals(0, source.inFlight());
    }

    @Test
    void skipsAndCountsMalformedRecordsAndCommitsPastThem() throws Exception {
        KafkaDownlinkSource source = source(10);
        record("dev-1");                                              // no topic
        record("dev-1", "mqtt.topic", "devices/dev-1/c", "mqtt.qos", "7"); // bad qos
        command("dev-2");
        source.step();
        assertEquals(1, target.messages.size(), "only the good record reaches the gateway");
        assertEquals("dev-2", target.messages.get(0).clientId());
        assertEquals(1.0, meters.get("mqttgw.kafka.downlink.malformed").tag("cause", "missing_topic").counter()
                .count());
        assertEquals(1.0, meters.get("mqttgw.kafka.downlink.malformed").tag("cause", "bad_qos").counter().count());
        assertEquals(2L, committed(source), "the malformed records are committed, the one in flight is not");
        target.outcomes.get(0).complete(DownlinkTarget.Outcome.DELIVERED);
        assertEquals(3L, committed(source));
    }

    @Test
    void countsAnAlreadyExpiredRecordWithoutHandingItOn() throws Exception {
        KafkaDownlinkSource source = source(10);
        record("dev-1", "mqtt.topic", "devices/dev-1/c", "expires.at", "1000");
        source.step();
        assertTrue(target.messages.isEmpty());
        assertEquals(1.0, outcome("expired"));
        assertEquals(1L, committed(source));
    }

    @Test
    void commitsOnlyUpToTheFirstRecordWhoseDeliveryIsNotComplete() throws Exception {
        KafkaDownlinkSource source = source(10);
        command("dev-1");
        command("dev-2");
        command("dev-3");
        source.step();
        target.outcomes.get(1).complete(DownlinkTarget.Outcome.DELIVERED);
        target.outcomes.get(2).complete(DownlinkTarget.Outcome.DELIVERED);
        assertNull(committed(source), "offset 0 is still in flight");
        target.outcomes.get(0).completeExceptionally(new IllegalStateException("channel gone"));
        assertEquals(3L, committed(source));
        assertEquals(1.0, outcome("failed"));
    }

    @Test
    void pausesAtTheBoundAndResumesWhenHalfHaveCompleted() {
        KafkaDownlinkSource source = source(4);
        for (int i = 0; i < 10; i++) {
            command("dev-" + i);
        }
        source.step();
        assertEquals(4, target.messages.size(), "no more than the bound is handed on");
        assertEquals(4, source.inFlight());
        assertTrue(source.paused());
        assertEquals(Set.of(P0), consumer.paused());
        assertEquals(6, source.backlog());

        target.outcomes.get(0).complete(DownlinkTarget.Outcome.DELIVERED);
        source.step();
        assertEquals(5, target.messages.size(), "a completion lets one more from the backlog through");
        assertTrue(source.paused());

        for (int i = 1; i < 5; i++) {
            target.outcomes.get(i).complete(DownlinkTarget.Outcome.DELIVERED);
        }
        source.step();
        assertEquals(9, target.messages.size());
        for (int i = 5; i < 9; i++) {
            target.outcomes.get(i).complete(DownlinkTarget.Outcome.DELIVERED);
        }
        source.step();
        assertEquals(10, target.messages.size());
        assertEquals(0, source.backlog());
        assertFalse(source.paused(), "backlog empty and at most half the bound in flight: reading again");
        assertTrue(consumer.paused().isEmpty());
        command("dev-late");
        source.step();
        assertEquals(11, target.messages.size());
    }

    @Test
    void reportsDegradedWhileKafkaDoesNotAnswerAndUpWhenItDoes() throws Exception {
        KafkaDownlinkSource source = new KafkaDownlinkSource(consumer, TOPIC, 10, Duration.ofSeconds(1), meters,
                null);
        source.attach(target);
        source.step();
        assertFalse(source.health().up(), "the topic does not exist");
        assertTrue(source.health().detail().contains("does not exist"), source.health().detail());

        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        Thread.sleep(1100); // the next look for partitions
        source.step();
        assertTrue(source.health().up(), source.health().detail());
        assertEquals(Set.of(P0), consumer.assignment());
    }

    @Test
    void degradesWhenTheLookForPartitionsTimesOut() {
        KafkaDownlinkSource source = new KafkaDownlinkSource(new MockConsumer<byte[], byte[]>("earliest") {
            @Override
            public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
                throw new TimeoutException("no broker");
            }
        }, TOPIC, 10, Duration.ofSeconds(1), meters, null);
        source.attach(target);
        source.step();
        assertFalse(source.health().up());
        assertTrue(source.health().detail().contains("no answer from Kafka"), source.health().detail());
    }

    @Test
    void runsOnItsOwnNamedThreadAndCommitsWhatCompletedWhenClosed() throws Exception {
        List<Map<TopicPartition, OffsetAndMetadata>> syncCommits = new ArrayList<>();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
            @Override
            public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
                syncCommits.add(Map.copyOf(offsets));
                super.commitSync(offsets, timeout);
            }
        };
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        KafkaDownlinkSource source = new KafkaDownlinkSource(consumer, TOPIC, 10, Duration.ofMinutes(1), meters,
                null);
        String[] thread = new String[1];
        DownlinkTarget named = new DownlinkTarget() {
            @Override
            public CompletionStage<Outcome> deliver(DownlinkMessage message) {
                thread[0] = Thread.currentThread().getName();
                return CompletableFuture.completedFuture(Outcome.DELIVERED);
            }

            @Override
            public CompletionStage<Integer> broadcast(DownlinkMessage message) {
                return CompletableFuture.completedFuture(0);
            }
        };
        source.start(named);
        long deadline = System.currentTimeMillis() + 5000;
        while (consumer.assignment().isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        consumer.schedulePollTask(() -> consumer.addRecord(record(0, "dev-1", "mqtt.topic", "devices/dev-1/c")));
        while (thread[0] == null && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(KafkaDownlinkSource.THREAD_NAME, thread[0]);
        source.close();
        assertTrue(consumer.closed());
        assertEquals(List.of(Map.of(P0, new OffsetAndMetadata(1L))), syncCommits,
                "committed at close, not by the interval");
    }
}
