package io.mqttgw.kafka.uplink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mqttgw.core.events.LogText;
import io.mqttgw.core.spi.HealthStatus;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Kafka uplink counts and reports: records sent, acknowledged and failed by cause (each cause in the log at
 * most once a minute), the acknowledgement latency, the records and bytes awaiting Kafka, and the health that the
 * last failure since the last acknowledgement implies.
 *
 * <p>Threading: updated from event loops (send), the producer's I/O thread (completions) and the parked-record
 * retry thread; read by the metrics scrape. Lock-free; thread-safe.
 */
final class UplinkMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaUplinkSink.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Payload bytes (and overhead) awaiting Kafka, charged against {@code uplink.kafka.max-pending-bytes}. */
    final AtomicLong pendingBytes = new AtomicLong();
    final AtomicLong pendingRecords = new AtomicLong();
    final AtomicLong parkedRecords = new AtomicLong();
    private final Counter sent;
    private final Counter acknowledged;
    private final Map<KafkaFailure, Counter> failed = new EnumMap<>(KafkaFailure.class);
    private final AtomicLongArray lastLogged = new AtomicLongArray(KafkaFailure.values().length);
    private final AtomicLongArray unlogged = new AtomicLongArray(KafkaFailure.values().length);
    private final Timer ackLatency;
    private volatile long lastAckNanos = System.nanoTime();
    private volatile long lastFailureNanos;
    private volatile KafkaFailure lastFailure;

    UplinkMetrics(MeterRegistry meters) {
        this.sent = Counter.builder("mqttgw.kafka.records.sent").description("Records handed to the Kafka producer")
                .register(meters);
        this.acknowledged = Counter.builder("mqttgw.kafka.records.acknowledged")
                .description("Records Kafka acknowledged").register(meters);
        for (KafkaFailure f : KafkaFailure.values()) {
            failed.put(f, Counter.builder("mqttgw.kafka.records.failed").tag("cause", f.label())
                    .description("Records that did not reach Kafka, by cause").register(meters));
        }
        this.ackLatency = Timer.builder("mqttgw.kafka.ack.latency")
                .description("From send to Kafka's acknowledgement").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(60))
                .register(meters);
        Gauge.builder("mqttgw.kafka.pending.records", pendingRecords, AtomicLong::get)
                .description("Records sent and not yet acknowledged or failed").register(meters);
        Gauge.builder("mqttgw.kafka.pending.bytes", pendingBytes, AtomicLong::get).baseUnit("bytes")
                .description("Bytes charged against uplink.kafka.max-pending-bytes").register(meters);
        Gauge.builder("mqttgw.kafka.parked.records", parkedRecords, AtomicLong::get)
                .description("Records waiting for their topic's metadata while Kafka is away (part of pending)")
                .register(meters);
    }

    /** A record handed on towards the producer. */
    void sent() {
        pendingRecords.incrementAndGet();
        sent.increment();
    }

    /** Kafka acknowledged a record sent at {@code startNanos}. */
    void acknowledged(long startNanos, long now) {
        ackLatency.record(now - startNanos, TimeUnit.NANOSECONDS);
        lastAckNanos = now;
    }

    /** Counted last in the acknowledgement, as the record completes. */
    void acknowledgedCount() {
        acknowledged.increment();
    }

    /** Marks Kafka as failing for {@code cause} from now, until the next acknowledgement. */
    void degraded(KafkaFailure cause) {
        lastFailure = cause;
        lastFailureNanos = System.nanoTime();
    }

    void count(KafkaFailure cause, String topic, Exception error) {
        failed.get(cause).increment();
        if (cause.degradesHealth()) {
            degraded(cause);
        }
        int i = cause.ordinal();
        long now = System.nanoTime();
        long last = lastLogged.get(i);
        if ((last == 0 || now - last >= LOG_INTERVAL_NANOS) && lastLogged.compareAndSet(i, last, now)) {
            long more = unlogged.getAndSet(i, 0);
            LOG.warn("Kafka uplink: {} (MQTT topic {}{}){}", cause.label(), LogText.escape(topic),
                    more > 0 ? "; " + more + " more since the last report" : "",
                    error == null ? "" : ": " + error);
        } else {
            unlogged.incrementAndGet(i);
        }
    }

    /** Failures that say something about Kafka since its last acknowledgement make the node report degraded. */
    HealthStatus health(boolean closed) {
        KafkaFailure failure = lastFailure;
        if (closed) {
            return HealthStatus.degraded("kafka producer closed");
        }
        if (failure != null && lastFailureNanos - lastAckNanos > 0) {
            long ago = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastAckNanos);
            return HealthStatus.degraded("kafka: " + failure.label() + ", no acknowledgement for " + ago + " s");
        }
        return HealthStatus.UP;
    }
}
