package io.mqttgw.kafka.uplink;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Records of topics Kafka knew, held per topic in order while the producer has no metadata for them (every broker
 * away), and handed to the producer again once it has: their PUBLISHes stay unacknowledged instead of refused. A
 * record parked longer than the delivery timeout fails as {@code timeout}.
 *
 * <p>Threading: records are parked and queued behind parked ones by event loops; one named daemon thread
 * ({@code kafka-uplink-parked}) retries them every retry interval while there are any; close refuses the rest on the
 * closing caller. Each topic's queue is locked only while its metadata is missing. Thread-safe.
 */
final class ParkedRecords {
    private final ConcurrentHashMap<String, Parked> parked = new ConcurrentHashMap<>();
    private final AtomicBoolean retryScheduled = new AtomicBoolean();
    private final ScheduledExecutorService retrier;
    private final long retryMillis;
    private final long deliveryTimeoutNanos;
    private final AtomicLong parkedRecords;
    /** Hands a record to the producer; false if it bounced again for missing metadata. */
    private final Predicate<KafkaUplinkSink.Delivery> hand;
    private final BooleanSupplier closed;

    ParkedRecords(long retryMillis, long deliveryTimeoutNanos, AtomicLong parkedRecords,
                  Predicate<KafkaUplinkSink.Delivery> hand, BooleanSupplier closed) {
        this.retrier = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "kafka-uplink-parked");
            t.setDaemon(true);
            return t;
        });
        this.retryMillis = retryMillis;
        this.deliveryTimeoutNanos = deliveryTimeoutNanos;
        this.parkedRecords = parkedRecords;
        this.hand = hand;
        this.closed = closed;
    }

    /**
     * Queues {@code delivery} behind its topic's parked records, so that no record overtakes an earlier one of its
     * device; false when none are parked for the topic (the caller hands it to the producer itself).
     */
    boolean offerBehind(String topic, KafkaUplinkSink.Delivery delivery) {
        if (parked.isEmpty()) {
            return false;
        }
        Parked waiting = parked.get(topic);
        return waiting != null && waiting.offer(delivery);
    }

    void park(KafkaUplinkSink.Delivery delivery) {
        String topic = delivery.record.topic();
        while (!parked.computeIfAbsent(topic, t -> new Parked()).offer(delivery)) {
            // that queue was just emptied and retired; the next one takes the record
            parked.remove(topic);
        }
        scheduleRetry();
    }

    private void scheduleRetry() {
        if (!parked.isEmpty() && !closed.getAsBoolean() && retryScheduled.compareAndSet(false, true)) {
            retrier.schedule(this::retryParked, retryMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void retryParked() {
        for (Map.Entry<String, Parked> e : parked.entrySet()) {
            if (e.getValue().drain()) {
                parked.remove(e.getKey(), e.getValue());
            }
        }
        retryScheduled.set(false);
        scheduleRetry();
    }

    /** Stops the retry thread and fails every parked record. */
    void close() {
        retrier.shutdown();
        for (Parked p : parked.values()) {
            p.refuseAll();
        }
    }

    /**
     * The parked records of one topic, oldest first. Offered to by event loops, drained by the retry thread; the
     * lock is taken only while the topic's metadata is missing. A drained queue is retired: offers then fail and
     * the caller hands its record to the producer itself.
     */
    private final class Parked {
        private final ArrayDeque<KafkaUplinkSink.Delivery> records = new ArrayDeque<>();
        private boolean retired;

        synchronized boolean offer(KafkaUplinkSink.Delivery delivery) {
            if (retired) {
                return false;
            }
            records.add(delivery);
            parkedRecords.incrementAndGet();
            return true;
        }

        /** Hands the records to the producer in order until one bounces again; true once empty and retired. */
        synchronized boolean drain() {
            KafkaUplinkSink.Delivery head;
            while ((head = records.peek()) != null) {
                if (System.nanoTime() - head.startNanos > deliveryTimeoutNanos) {
                    records.poll();
                    parkedRecords.decrementAndGet();
                    head.onCompletion(null, new TimeoutException("no metadata for " + head.record.topic()
                            + " within the delivery timeout"));
                    continue;
                }
                if (!hand.test(head)) {
                    return false;
                }
                records.poll();
                parkedRecords.decrementAndGet();
            }
            retired = true;
            return true;
        }

        synchronized void refuseAll() {
            KafkaUplinkSink.Delivery d;
            while ((d = records.poll()) != null) {
                parkedRecords.decrementAndGet();
                d.onCompletion(null, new IllegalStateException("producer closed"));
            }
            retired = true;
        }
    }
}
