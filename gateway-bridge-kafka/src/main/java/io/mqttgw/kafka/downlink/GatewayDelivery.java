package io.mqttgw.kafka.downlink;

import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the records read to the gateway: a record keyed by a client id to {@link DownlinkTarget#deliver}, a
 * broadcast record to {@link DownlinkTarget#broadcast}; a malformed or expired one is counted and done at once. At
 * most {@code maxInFlight} are with the gateway and not completed; the rest wait in a backlog (at most one poll's
 * worth, as the consumer pauses while there is one).
 *
 * <p>Threading: {@link #add}, {@link #dispatch} and {@link #drainCompleted} run on the consumer thread. The outcome
 * stages complete on event loops, which only count the outcome, put the record on a lock-free queue and, once at
 * most {@code resumeAt} are in flight while the consumer is paused, call {@code wake} once (the consumer thread
 * re-arms it with {@link #rearmWake} at the start of each turn).
 */
final class GatewayDelivery {
    // the source's logger: operators configure and grep one name for the downlink consumer
    private static final Logger LOG = LoggerFactory.getLogger(KafkaDownlinkSource.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final DownlinkTarget target;
    private final DownlinkMetrics metrics;
    private final int maxInFlight;
    private final int resumeAt;
    private final BooleanSupplier paused;
    private final Runnable wake;

    // shared with the threads that complete deliveries
    private final Queue<PartitionOffsets.Pending> completed = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight;
    private final AtomicBoolean wakeRequested = new AtomicBoolean();
    private final AtomicLongArray lastLogged = new AtomicLongArray(Malformed.values().length);

    // consumer thread only
    private final ArrayDeque<Polled> backlog = new ArrayDeque<>();

    /**
     * @param inFlight the count of deliveries with the gateway (shared with the metrics that report it)
     * @param paused   whether the consumer is paused now
     * @param wake     wakes the consumer thread from its poll; safe from any thread
     */
    GatewayDelivery(DownlinkTarget target, DownlinkMetrics metrics, int maxInFlight, AtomicInteger inFlight,
                    BooleanSupplier paused, Runnable wake) {
        this.target = target;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
        this.resumeAt = maxInFlight / 2;
        this.inFlight = inFlight;
        this.paused = paused;
        this.wake = wake;
    }

    /** A record just read, to be dispatched in order after those waiting. */
    void add(ConsumerRecord<byte[], byte[]> record, PartitionOffsets.Pending pending) {
        backlog.add(new Polled(record, pending));
    }

    /** Hands waiting records to the gateway while fewer than {@code maxInFlight} are with it. */
    void dispatch() {
        while (!backlog.isEmpty() && inFlight.get() < maxInFlight) {
            Polled polled = backlog.poll();
            dispatch(polled.record, polled.pending);
        }
    }

    /** Drops the waiting records of partitions no longer assigned. */
    void retainPartitions(Set<TopicPartition> assigned) {
        backlog.removeIf(polled -> !assigned.contains(polled.pending.partition()));
    }

    /** Marks the records the gateway completed since the last call as done. */
    void drainCompleted() {
        PartitionOffsets.Pending p;
        while ((p = completed.poll()) != null) {
            p.done();
        }
    }

    /** Lets the next completion that brings the count down to {@code resumeAt} wake the consumer again. */
    void rearmWake() {
        wakeRequested.set(false);
    }

    /** Whether reading should pause: records are waiting, or the gateway has all it may. */
    boolean full() {
        return !backlog.isEmpty() || inFlight.get() >= maxInFlight;
    }

    /** Whether paused reading may resume: nothing waits and at most half the bound is in flight. */
    boolean mayResume() {
        return backlog.isEmpty() && inFlight.get() <= resumeAt;
    }

    int inFlight() {
        return inFlight.get();
    }

    int backlog() {
        return backlog.size();
    }

    private void dispatch(ConsumerRecord<byte[], byte[]> record, PartitionOffsets.Pending pending) {
        DownlinkRecords.Mapped mapped = DownlinkRecords.map(record.key(), record.value(), record.headers());
        if (mapped.malformed() != null) {
            malformed(mapped.malformed(), record);
            pending.done();
            return;
        }
        if (mapped.message().expired(System.currentTimeMillis())) {
            metrics.outcome(Outcome.EXPIRED);
            pending.done();
            return;
        }
        inFlight.incrementAndGet();
        long timestamp = record.timestamp();
        if (mapped.broadcast()) {
            metrics.broadcasts.increment();
            stage(() -> target.broadcast(mapped.message())).whenComplete((count, error) -> {
                if (count != null) {
                    metrics.broadcastReceivers.increment(count);
                } else {
                    metrics.failed.increment();
                }
                finished(pending);
            });
        } else {
            stage(() -> target.deliver(mapped.message())).whenComplete((outcome, error) -> {
                if (outcome != null) {
                    metrics.outcome(outcome);
                    if (outcome == Outcome.DELIVERED) {
                        metrics.delivered(timestamp);
                    }
                } else {
                    metrics.failed.increment();
                }
                finished(pending);
            });
        }
    }

    private static <T> CompletionStage<T> stage(Supplier<CompletionStage<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** On whatever thread completed the delivery (usually an event loop): hand the record back, wake if waited for. */
    private void finished(PartitionOffsets.Pending pending) {
        completed.add(pending);
        int left = inFlight.decrementAndGet();
        if (paused.getAsBoolean() && left <= resumeAt && wakeRequested.compareAndSet(false, true)) {
            wake.run();
        }
    }

    private void malformed(Malformed cause, ConsumerRecord<byte[], byte[]> record) {
        metrics.malformed(cause);
        int i = cause.ordinal();
        long now = System.nanoTime();
        long last = lastLogged.get(i);
        if (last == 0 || now - last >= LOG_INTERVAL_NANOS) {
            lastLogged.set(i, now);
            LOG.warn("Kafka downlink: skipped a malformed record ({}) at {}-{}@{}; such records are counted, logged "
                    + "at most once a minute per cause", cause.label(), record.topic(), record.partition(),
                    record.offset());
        }
    }

    private record Polled(ConsumerRecord<byte[], byte[]> record, PartitionOffsets.Pending pending) {
    }
}
