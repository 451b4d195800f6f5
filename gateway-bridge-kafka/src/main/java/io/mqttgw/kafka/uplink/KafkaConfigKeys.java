package io.mqttgw.kafka.uplink;

import static io.mqttgw.core.config.ValueParsers.duration;
import static io.mqttgw.core.config.ValueParsers.list;
import static io.mqttgw.core.config.ValueParsers.nonEmpty;
import static io.mqttgw.core.config.ValueParsers.oneOf;
import static io.mqttgw.core.config.ValueParsers.size;

import io.mqttgw.core.config.ConfigKey;
import java.time.Duration;
import java.util.List;

/** The keys of {@code uplink.sink: kafka}; any Kafka producer property passes through under {@link #PRODUCER}. */
public final class KafkaConfigKeys {
    private KafkaConfigKeys() {
    }

    /** Open prefix: {@code uplink.kafka.producer.linger.ms: 5} sets the producer's {@code linger.ms}. */
    public static final String PRODUCER = "uplink.kafka.producer.";

    public static final ConfigKey<String> BOOTSTRAP = new ConfigKey<>("uplink.kafka.bootstrap-servers", null,
            "host:port[,host:port...]", "Kafka brokers to bootstrap from; required with uplink.sink kafka.",
            nonEmpty());
    public static final ConfigKey<String> ACKS = new ConfigKey<>("uplink.kafka.acks", "all",
            "all (durable, the default), 1 (fast) or 0",
            "When a PUBACK may leave. all: once the record is on every in-sync replica, with idempotence (no "
                    + "duplicates or reordering through retries); with the topic's min.insync.replicas >= 2 nothing "
                    + "acknowledged is lost when a broker fails. 1, the fast profile: once the partition leader "
                    + "wrote it; less latency and broker work, but a leader failover can lose acknowledged "
                    + "messages and retries can reorder them. 0: without waiting for any broker; a PUBACK then "
                    + "promises nothing.",
            oneOf("0", "1", "all"));
    public static final ConfigKey<Duration> LINGER = new ConfigKey<>("uplink.kafka.linger", "10ms", "0ms to 10s",
            "How long the producer waits to fill a batch (linger.ms).",
            duration(Duration.ZERO, Duration.ofSeconds(10)));
    public static final ConfigKey<Long> BATCH_SIZE = new ConfigKey<>("uplink.kafka.batch-size", "64KiB",
            "1KiB to 16MiB", "Largest batch per partition (batch.size).", size(1024, 16L << 20));
    public static final ConfigKey<String> COMPRESSION = new ConfigKey<>("uplink.kafka.compression", "snappy",
            "none, gzip, snappy, lz4 or zstd", "Batch compression (compression.type). snappy: the least CPU per "
                    + "record on the sending event loops at lz4's size (BENCHMARKS.md); zstd sends about half the "
                    + "bytes for about a third more CPU per record and a higher acknowledgement p99. Loaded at "
                    + "startup: a codec that cannot load on this machine stops it.",
            oneOf("none", "gzip", "snappy", "lz4", "zstd"));
    public static final ConfigKey<Long> BUFFER_MEMORY = new ConfigKey<>("uplink.kafka.buffer-memory", "64MiB",
            "1MiB to 16GiB", "Producer buffer for records not yet sent (buffer.memory).", size(1L << 20, 16L << 30));
    public static final ConfigKey<Long> MAX_PENDING = new ConfigKey<>("uplink.kafka.max-pending-bytes", "48MiB",
            "64KiB to 16GiB, below uplink.kafka.buffer-memory",
            "Payload bytes handed to Kafka and not yet acknowledged; past it QoS 0 is dropped and a QoS 1/2 "
                    + "message waits with its connection, whose reading pauses (the device stays connected, its "
                    + "PUBACK waits), until the bytes fall under half; so memory stays bounded whatever Kafka does.",
            size(64 * 1024, 16L << 30));
    public static final ConfigKey<Duration> REQUEST_TIMEOUT = new ConfigKey<>("uplink.kafka.request-timeout", "10s",
            "100ms to 5m", "Wait for one produce request (request.timeout.ms).",
            duration(Duration.ofMillis(100), Duration.ofMinutes(5)));
    public static final ConfigKey<Duration> DELIVERY_TIMEOUT = new ConfigKey<>("uplink.kafka.delivery-timeout",
            "30s", "1s to 1h, at least linger plus request timeout",
            "Longest a record may take to be acknowledged, retries included (delivery.timeout.ms); then it fails "
                    + "and its PUBLISH stays unacknowledged.", duration(Duration.ofSeconds(1), Duration.ofHours(1)));
    public static final ConfigKey<String> DEFAULT_TOPIC = new ConfigKey<>("uplink.kafka.default-topic",
            "device.uplink", "a Kafka topic name", "Topic for messages no rule matches.", nonEmpty());
    public static final ConfigKey<List<String>> TOPIC_RULES = new ConfigKey<>("uplink.kafka.topic-rules", "",
            "comma-separated FILTER=TOPIC, e.g. devices/{id}/heartbeat=device.heartbeat,devices/+/status=device.status",
            "MQTT topic filter to Kafka topic, first match wins; {name} stands for one level like +.", list());
    public static final ConfigKey<Duration> WARMUP_TIMEOUT = new ConfigKey<>("uplink.kafka.warmup-timeout", "10s",
            "0s to 5m", "How long startup waits for the topics' metadata; after it the node starts degraded and "
                    + "keeps trying.", duration(Duration.ZERO, Duration.ofMinutes(5)));

    public static final List<ConfigKey<?>> ALL = List.of(BOOTSTRAP, ACKS, LINGER, BATCH_SIZE, COMPRESSION,
            BUFFER_MEMORY, MAX_PENDING, REQUEST_TIMEOUT, DELIVERY_TIMEOUT, DEFAULT_TOPIC, TOPIC_RULES, WARMUP_TIMEOUT);
}
