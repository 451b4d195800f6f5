package io.mqttgw.bench.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.kafka.testkit.KafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The tool against a real broker, at low rates for a few seconds: what it counts is what the broker holds. */
class ProducerRateIT {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // a broker start and two short rates, slow on a loaded machine
    void acknowledgesEveryRecordItSendsAndCountsWhatTheBrokerHolds() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
            long brokerPid = Long.parseLong(Files.readString(dir.resolve("kafka/broker.pid")).trim());
            ProducerRate.Options options = new ProducerRate.Options(broker.bootstrapServers(), brokerPid,
                    List.of(300, 1000), 2, 1000, Duration.ofSeconds(2), Duration.ofSeconds(3), 12, "it.",
                    dir.resolve("out"), "1",
                    // averages over the whole run: a window of a few seconds on a loaded machine may hold no batch
                    Map.of("uplink.kafka.producer.metrics.sample.window.ms", "30000"));
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            ProducerRate.Result result = ProducerRate.run(options, new PrintStream(text, true,
                    StandardCharsets.UTF_8));
            String output = text.toString(StandardCharsets.UTF_8);

            Sender.Counts totals = result.totals();
            assertTrue(totals.sent() > 0, output);
            assertEquals(0, totals.failed(), output);
            assertEquals(0, totals.refused(), output);
            assertEquals(totals.sent(), totals.acked(), output);

            Map<String, Long> held = recordsHeld(broker, List.of("it.heartbeat", "it.status", "it.uplink"));
            assertEquals(totals.acked(), held.get("it.heartbeat") + held.get("it.status"), held.toString());
            assertEquals(0, held.get("it.uplink"), "no record falls to the default topic");
            // each loop sends a status after every four heartbeats
            long statuses = held.get("it.status");
            assertTrue(Math.abs(totals.acked() / Sender.STATUS_EVERY - statuses) <= options.senders(),
                    "statuses " + statuses + " of " + totals.acked());

            assertEquals(2, result.rows().size());
            for (ProducerRate.Row row : result.rows()) {
                assertTrue(row.counts().acked() > 0, output);
                assertTrue(row.processMicros() > 0, "process CPU per record: " + output);
                assertTrue(row.brokerMicros() >= 0, "broker CPU per record: " + output);
                assertTrue(row.batchSizeAvg() > 0, "batch-size-avg: " + output);
                assertTrue(row.recordsPerRequestAvg() >= 1, "records-per-request-avg: " + output);
                // a 20 B or 500 B payload with its client id key and headers, compressed by the default codec in
                // batches of a record or two at these rates (the codec's framing can outweigh its gain on one record)
                assertTrue(row.wireBytesPerRecord() > 10 && row.wireBytesPerRecord() < 2000,
                        "bytes to the broker per record: " + output);
                assertTrue(row.compressionRateAvg() > 0 && row.compressionRateAvg() < 1.5,
                        "compression rate: " + output);
                assertTrue(row.p99Millis() >= row.p50Millis() && row.p50Millis() > 0, output);
            }
            List<String> csv = Files.readAllLines(dir.resolve("out/results.csv"));
            assertEquals(3, csv.size(), String.join("\n", csv));
            assertEquals(String.join(",", ProducerRate.COLUMNS), csv.get(0));
            assertTrue(csv.get(1).startsWith("1,300,"), csv.get(1));
            assertEquals(4, Files.readAllLines(dir.resolve("out/results.md")).size());
        }
    }

    /** Records in each topic's log: the sum of its partitions' end offsets (the topics are new). */
    private static Map<String, Long> recordsHeld(KafkaBroker broker, List<String> topics) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicDescription d : described.values()) {
                assertEquals(12, d.partitions().size(), d.name());
                d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()),
                        OffsetSpec.latest()));
            }
            Map<String, Long> held = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> held.merge(tp.topic(), info.offset(), Long::sum));
            return held;
        }
    }
}
