package io.mqttgw.kafka.downlink;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.HealthStatus;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads this node's downlink topic on its own thread and passes the records to {@link GatewayDelivery}, which hands
 * them to the gateway; {@link PartitionOffsets} tracks which are done and so what to commit. This class owns the
 * thread and the consumer: polling, finding partitions, pausing and resuming, committing; {@link DownlinkHealth}
 * tracks whether Kafka answers and {@link DownlinkShutdown} commits and closes at the end.
 *
 * <p>Threading: the consumer is owned by one thread, {@code kafka-downlink-consumer}, which polls, dispatches and
 * commits; no event loop ever touches it. Completions reach it through {@link GatewayDelivery}'s queue and, when it
 * waits at its bound, {@code wakeup()} (the one consumer method safe from other threads). The thread takes the
 * queue on each turn.
 *
 * <p>Flow control: at most {@code max-in-flight} records are handed to the gateway and not completed; polled records
 * beyond that wait in a backlog (at most one poll's worth) while the partitions are paused, and reading resumes once
 * the backlog is empty and half the bound has completed.
 *
 * <p>Offsets: the partitions are assigned, not subscribed (one consumer per node; no rebalances, a restarted node
 * reads at once). A partition's offset is committed up to its first record whose delivery has not completed, every
 * {@code commit-interval}: at least once into the gateway; records in flight at a crash are read again.
 *
 * <p>Health: every few seconds the thread looks for the topic's partitions (which also finds new ones) and asks
 * their leaders for the end offsets; when that, or a commit, failed more recently than anything succeeded,
 * {@link #health} is degraded.
 */
public final class KafkaDownlinkSource implements DownlinkSource {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaDownlinkSource.class);
    static final String THREAD_NAME = "kafka-downlink-consumer";
    static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    static final long PROBE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long UNASSIGNED_PROBE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final int maxInFlight;
    private final long commitIntervalNanos;
    private final DownlinkMetrics metrics;
    private final AutoCloseable onClose;

    // shared with the threads that complete deliveries (through GatewayDelivery) and with health checks
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean paused;
    private volatile boolean running = true;
    private final DownlinkHealth health;

    // consumer thread only
    private final PartitionOffsets offsets = new PartitionOffsets();
    private GatewayDelivery delivery;
    private Thread thread;
    private long nextProbeNanos = System.nanoTime();
    private long nextCommitNanos;

    /**
     * @param onClose closed after the consumer (e.g. the consumer's metrics binder); may be null
     */
    public KafkaDownlinkSource(Consumer<byte[], byte[]> consumer, String topic, int maxInFlight,
                               Duration commitInterval, MeterRegistry meters, AutoCloseable onClose) {
        this.consumer = consumer;
        this.topic = topic;
        this.maxInFlight = maxInFlight;
        this.commitIntervalNanos = commitInterval.toNanos();
        this.onClose = onClose;
        this.metrics = new DownlinkMetrics(meters, inFlight::get, () -> paused ? 1 : 0);
        this.health = new DownlinkHealth(topic, () -> running);
    }

    @Override
    public synchronized void start(DownlinkTarget target) {
        attach(target);
        thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
        thread.start();
    }

    /** Sets the target without starting the thread: tests drive {@link #step} themselves. */
    void attach(DownlinkTarget target) {
        this.delivery = new GatewayDelivery(target, metrics, maxInFlight, inFlight, () -> paused, consumer::wakeup);
        this.nextCommitNanos = System.nanoTime() + commitIntervalNanos;
    }

    private void run() {
        LOG.info("Kafka downlink consuming {} (at most {} deliveries in flight)", topic, maxInFlight);
        try {
            while (running) {
                try {
                    step();
                } catch (WakeupException e) {
                    // a completion asked to resume, or close() asked to stop: look again
                } catch (KafkaException e) {
                    failure("consumer: " + e);
                    pauseQuietly(POLL_TIMEOUT.toMillis());
                } catch (RuntimeException e) {
                    LOG.error("Kafka downlink consumer: unexpected failure, going on", e);
                    pauseQuietly(POLL_TIMEOUT.toMillis());
                }
            }
        } finally {
            shutDown();
        }
    }

    /** One turn of the consumer thread: take completions, look for partitions, dispatch, poll, commit. */
    void step() {
        delivery.rearmWake();
        delivery.drainCompleted();
        long now = System.nanoTime();
        if (now - nextProbeNanos >= 0) {
            probe(now);
        }
        if (offsets.isEmpty()) {
            pauseQuietly(POLL_TIMEOUT.toMillis());
            return;
        }
        delivery.dispatch();
        flowControl();
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL_TIMEOUT);
        } catch (WakeupException e) {
            // a completion asked to resume, or close() asked to stop: take the turn again
            records = ConsumerRecords.empty();
        }
        if (!records.isEmpty()) {
            contact();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                metrics.received.increment();
                PartitionOffsets.Pending pending = offsets.track(record);
                if (pending != null) {
                    delivery.add(record, pending);
                }
                // else: a partition no longer assigned
            }
            delivery.dispatch();
            flowControl();
        }
        delivery.drainCompleted();
        if (System.nanoTime() - nextCommitNanos >= 0) {
            commit();
            nextCommitNanos = System.nanoTime() + commitIntervalNanos;
        }
    }

    /** Asks Kafka for the topic's partitions: a health probe, and how new partitions are found. */
    private void probe(long now) {
        List<PartitionInfo> partitions;
        try {
            partitions = consumer.partitionsFor(topic, PROBE_TIMEOUT);
        } catch (KafkaException e) {
            failure("no answer from Kafka for the partitions of " + topic + ": " + e);
            nextProbeNanos = now + (offsets.isEmpty() ? UNASSIGNED_PROBE_INTERVAL_NANOS : PROBE_INTERVAL_NANOS);
            return;
        }
        if (partitions == null || partitions.isEmpty()) {
            failure("downlink topic " + topic + " does not exist; create it");
            nextProbeNanos = now + UNASSIGNED_PROBE_INTERVAL_NANOS;
            return;
        }
        nextProbeNanos = now + PROBE_INTERVAL_NANOS;
        Set<TopicPartition> found = new HashSet<>();
        for (PartitionInfo info : partitions) {
            found.add(new TopicPartition(topic, info.partition()));
        }
        if (offsets.assign(found)) {
            delivery.retainPartitions(found);
            consumer.assign(found);
            if (paused) {
                consumer.pause(found);
            }
            LOG.info("Kafka downlink reads {} partition(s) of {}", found.size(), topic);
        }
        // the partitions of a known topic come from the consumer's cached metadata: ask the leaders themselves
        try {
            consumer.endOffsets(found, PROBE_TIMEOUT);
            contact();
        } catch (KafkaException e) {
            failure("no answer from Kafka for the end offsets of " + topic + ": " + e);
        }
    }

    private void flowControl() {
        if (delivery.full() && !paused) {
            consumer.pause(offsets.partitions());
            paused = true;
        } else if (paused && delivery.mayResume()) {
            consumer.resume(offsets.partitions());
            paused = false;
        }
    }

    private void commit() {
        Map<TopicPartition, OffsetAndMetadata> committable = offsets.committable();
        if (committable.isEmpty()) {
            return;
        }
        consumer.commitAsync(committable, (done, error) -> {
            if (error == null) {
                metrics.commitsOk.increment();
                contact();
            } else {
                metrics.commitsFailed.increment();
                offsets.commitFailed(committable.keySet());
                failure("offset commit failed: " + error);
            }
        });
    }

    private void contact() {
        health.contact();
    }

    private void failure(String detail) {
        health.failure(detail);
    }

    private void pauseQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public HealthStatus health() {
        return health.health();
    }

    /** Stops the thread: completed records' offsets are committed, records still in flight will be read again. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t == null) {
            shutDown();
            return;
        }
        consumer.wakeup();
        try {
            t.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            LOG.warn("Kafka downlink consumer did not stop within 15 s");
        }
    }

    private void shutDown() {
        DownlinkShutdown.run(consumer, delivery, offsets, onClose, inFlight::get);
    }

    int inFlight() {
        return inFlight.get();
    }

    boolean paused() {
        return paused;
    }

    int backlog() {
        return delivery.backlog();
    }
}
