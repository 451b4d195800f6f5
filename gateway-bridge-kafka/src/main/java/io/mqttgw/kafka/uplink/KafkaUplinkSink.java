package io.mqttgw.kafka.uplink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mqttgw.core.events.LogText;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.kafka.mapping.PropertyHeaders;
import io.mqttgw.kafka.mapping.TopicMapping;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device PUBLISHes to Kafka through one shared producer. A record is keyed by the device's client id, so one
 * device's records share a partition and keep their order, and carries headers {@code mqtt.topic},
 * {@code mqtt.qos}, {@code device.id}, {@code gateway.node} and {@code received.at} (epoch ms), and an MQTT 5.0
 * message's properties as {@link PropertyHeaders}; the payload array is handed to the producer as it is. The stage
 * completes when Kafka acknowledges (per {@code uplink.kafka.acks}).
 *
 * <p>Threading: {@link #send} is called on event loops and never blocks: the producer runs with
 * {@code max.block.ms=0}, and payload bytes awaiting Kafka are bounded by {@code uplink.kafka.max-pending-bytes};
 * past the bound, or when the producer cannot take a record at once, the stage fails immediately with
 * {@link UplinkRejectedException}. Completions run on the producer's I/O thread; the gateway hops back to the
 * channel's event loop. Failures are counted by cause and logged at most once a minute per cause.
 *
 * <p>Kafka away: the producer forgets a topic's metadata when every broker is stopped (a broker that shuts down in
 * order reports its partitions leaderless), and then refuses each record for it at once. For a topic Kafka has
 * known since this node started (warmed up or acknowledged), such a record is not refused but parked, in order,
 * with the topic's later records behind it, and handed to the producer again once the metadata is back: its PUBLISH
 * stays unacknowledged and the device connected, as when Kafka only slows down. Parked records stay charged against
 * {@code uplink.kafka.max-pending-bytes} and fail as {@code timeout} after {@code uplink.kafka.delivery-timeout}. A
 * topic never known is still refused at once (it may not exist). One named thread retries parked records every
 * {@value #PARKED_RETRY_MILLIS} ms while there are any.
 */
public final class KafkaUplinkSink implements UplinkSink {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaUplinkSink.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** Pending-bytes charge of a record beyond its payload: key, headers and batch overhead, roughly. */
    private static final int RECORD_OVERHEAD = 96;
    private static final byte[][] QOS = {{'0'}, {'1'}, {'2'}};
    /**
     * After the producer found no metadata for a topic, records for it are refused without asking the producer for
     * this long: during an outage that caps the producer's exceptions (each with a stack) at ten a second per
     * topic instead of one per message, while still asking often enough to notice Kafka's return at once.
     */
    private static final long METADATA_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long PARKED_RETRY_MILLIS = 100;

    private final Producer<byte[], byte[]> producer;
    private final TopicMapping mapping;
    private final long maxPendingBytes;
    private final byte[] nodeId;
    private final ConcurrentHashMap<String, Long> metadataRetryAt = new ConcurrentHashMap<>();
    /** Topics whose metadata the producer had since start: a missing one then means Kafka is away. */
    private final Set<String> knownTopics = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Parked> parked = new ConcurrentHashMap<>();
    private final AtomicLong parkedRecords = new AtomicLong();
    private final AtomicBoolean retryScheduled = new AtomicBoolean();
    private final ScheduledExecutorService retrier;
    private final long deliveryTimeoutNanos;
    private final AtomicLong pendingBytes = new AtomicLong();
    private final AtomicLong pendingRecords = new AtomicLong();
    private final Counter sent;
    private final Counter acknowledged;
    private final Map<KafkaFailure, Counter> failed = new EnumMap<>(KafkaFailure.class);
    private final AtomicLongArray lastLogged = new AtomicLongArray(KafkaFailure.values().length);
    private final AtomicLongArray unlogged = new AtomicLongArray(KafkaFailure.values().length);
    private final Timer ackLatency;
    private volatile long lastAckNanos = System.nanoTime();
    private volatile long lastFailureNanos;
    private volatile KafkaFailure lastFailure;
    private volatile boolean closed;

    public KafkaUplinkSink(Producer<byte[], byte[]> producer, TopicMapping mapping, long maxPendingBytes,
                           String nodeId, MeterRegistry meters) {
        this(producer, mapping, maxPendingBytes, Duration.ofSeconds(30), nodeId, meters);
    }

    /** @param deliveryTimeout how long a record may stay parked while its topic's metadata is missing */
    public KafkaUplinkSink(Producer<byte[], byte[]> producer, TopicMapping mapping, long maxPendingBytes,
                           Duration deliveryTimeout, String nodeId, MeterRegistry meters) {
        this.producer = producer;
        this.deliveryTimeoutNanos = deliveryTimeout.toNanos();
        this.retrier = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "kafka-uplink-parked");
            t.setDaemon(true);
            return t;
        });
        this.mapping = mapping;
        this.maxPendingBytes = maxPendingBytes;
        this.nodeId = nodeId.getBytes(StandardCharsets.UTF_8);
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

    @Override
    public CompletionStage<Void> send(UplinkMessage message) {
        if (closed) {
            return refuse(KafkaFailure.CLOSED, message.topic(), null);
        }
        int cost = message.payload().length + message.topic().length() + RECORD_OVERHEAD;
        if (pendingBytes.addAndGet(cost) > maxPendingBytes) {
            pendingBytes.addAndGet(-cost);
            return refuse(KafkaFailure.PENDING_BYTES_FULL, message.topic(), null);
        }
        String topic = mapping.kafkaTopic(message.topic());
        boolean known = knownTopics.contains(topic);
        if (!known && !metadataRetryAt.isEmpty()) {
            Long retryAt = metadataRetryAt.get(topic);
            if (retryAt != null && System.nanoTime() - retryAt < 0) {
                pendingBytes.addAndGet(-cost);
                return refuse(KafkaFailure.METADATA_UNAVAILABLE, message.topic(), null);
            }
        }
        byte[] key = message.clientId().getBytes(StandardCharsets.UTF_8);
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader("mqtt.topic", message.topic().getBytes(StandardCharsets.UTF_8)));
        headers.add(new RecordHeader("mqtt.qos", QOS[message.qos()]));
        headers.add(new RecordHeader("device.id", key));
        headers.add(new RecordHeader("gateway.node", nodeId));
        headers.add(new RecordHeader("received.at",
                Long.toString(message.receivedAtMillis()).getBytes(StandardCharsets.US_ASCII)));
        PropertyHeaders.write(message.properties(), headers);
        // never past at this point (the message comes here as it is read); the producer may still deliver it later,
        // after retries, so the deadline travels with the record for its consumer to honour
        PropertyHeaders.writeExpiry(message.receivedAtMillis(), message.expiryInterval(), headers);
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, message.receivedAtMillis(), key,
                message.payload(), headers);
        Delivery delivery = new Delivery(cost, record);
        pendingRecords.incrementAndGet();
        sent.increment();
        if (known && !parked.isEmpty()) {
            Parked waiting = parked.get(topic);
            // behind the topic's parked records, so that no record overtakes an earlier one of its device
            if (waiting != null && waiting.offer(delivery)) {
                return delivery;
            }
        }
        if (!hand(delivery)) {
            park(delivery);
        }
        return delivery;
    }

    /** Hands a record to the producer; false if it bounced for missing metadata of a known topic (to be parked). */
    private boolean hand(Delivery delivery) {
        delivery.sending = true;
        delivery.bounced = false;
        try {
            producer.send(delivery.record, delivery);
        } catch (RuntimeException e) {
            // thrown rather than called back: a closed producer, a serializer or interceptor failure
            delivery.onCompletion(null, e);
        }
        delivery.sending = false;
        return !delivery.bounced;
    }

    private void park(Delivery delivery) {
        String topic = delivery.record.topic();
        lastFailure = KafkaFailure.METADATA_UNAVAILABLE;
        lastFailureNanos = System.nanoTime();
        while (!parked.computeIfAbsent(topic, t -> new Parked()).offer(delivery)) {
            // that queue was just emptied and retired; the next one takes the record
            parked.remove(topic);
        }
        scheduleRetry();
    }

    private void scheduleRetry() {
        if (!parked.isEmpty() && !closed && retryScheduled.compareAndSet(false, true)) {
            retrier.schedule(this::retryParked, PARKED_RETRY_MILLIS, TimeUnit.MILLISECONDS);
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

    /** Marks a topic as one Kafka knows (its metadata arrived at warm-up). */
    void knownTopic(String topic) {
        knownTopics.add(topic);
    }

    private CompletionStage<Void> refuse(KafkaFailure cause, String topic, Exception error) {
        count(cause, topic, error);
        return CompletableFuture.failedFuture(new UplinkRejectedException("kafka: " + cause.label()));
    }

    private void count(KafkaFailure cause, String topic, Exception error) {
        failed.get(cause).increment();
        if (cause.degradesHealth()) {
            lastFailure = cause;
            lastFailureNanos = System.nanoTime();
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
    @Override
    public HealthStatus health() {
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

    /** Marks the topics' metadata as missing after a failed warm-up, so health reports it until Kafka answers. */
    void warmUpFailed(String detail) {
        lastFailure = KafkaFailure.METADATA_UNAVAILABLE;
        lastFailureNanos = System.nanoTime();
        LOG.warn("Kafka uplink starts degraded: {}; records are refused until the metadata arrives", detail);
    }

    @Override
    public CompletionStage<Void> close() {
        closed = true;
        retrier.shutdown();
        for (Parked p : parked.values()) {
            p.refuseAll();
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread closer = new Thread(() -> {
            try {
                producer.close(Duration.ofSeconds(30));
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, "kafka-uplink-close");
        closer.setDaemon(true);
        closer.start();
        return done;
    }

    long pendingBytes() {
        return pendingBytes.get();
    }

    /** Bytes awaiting Kafka as a share of {@code uplink.kafka.max-pending-bytes}. */
    @Override
    public double pressure() {
        return (double) pendingBytes.get() / maxPendingBytes;
    }

    /**
     * The parked records of one topic, oldest first. Offered to by event loops, drained by the retry thread; the
     * lock is taken only while the topic's metadata is missing. A drained queue is retired: offers then fail and
     * the caller hands its record to the producer itself.
     */
    private final class Parked {
        private final ArrayDeque<Delivery> records = new ArrayDeque<>();
        private boolean retired;

        synchronized boolean offer(Delivery delivery) {
            if (retired) {
                return false;
            }
            records.add(delivery);
            parkedRecords.incrementAndGet();
            return true;
        }

        /** Hands the records to the producer in order until one bounces again; true once empty and retired. */
        synchronized boolean drain() {
            Delivery head;
            while ((head = records.peek()) != null) {
                if (System.nanoTime() - head.startNanos > deliveryTimeoutNanos) {
                    records.poll();
                    parkedRecords.decrementAndGet();
                    head.onCompletion(null, new TimeoutException("no metadata for " + head.record.topic()
                            + " within the delivery timeout"));
                    continue;
                }
                if (!hand(head)) {
                    return false;
                }
                records.poll();
                parkedRecords.decrementAndGet();
            }
            retired = true;
            return true;
        }

        synchronized void refuseAll() {
            Delivery d;
            while ((d = records.poll()) != null) {
                parkedRecords.decrementAndGet();
                d.onCompletion(null, new IllegalStateException("producer closed"));
            }
            retired = true;
        }
    }

    /** The stage of one record and the producer's callback for it: one object per record, not two. */
    private final class Delivery extends CompletableFuture<Void> implements Callback {
        private final int cost;
        private final String topic;
        private final ProducerRecord<byte[], byte[]> record;
        private final long startNanos = System.nanoTime();
        /** True while {@code send} runs: a callback then means the producer refused at once. */
        volatile boolean sending = true;
        /** The producer refused it at once for missing metadata of a known topic: not completed, to be parked. */
        boolean bounced;

        Delivery(int cost, ProducerRecord<byte[], byte[]> record) {
            this.cost = cost;
            this.topic = record.topic();
            this.record = record;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception error) {
            if (error != null && sending && !closed && knownTopics.contains(topic)
                    && KafkaFailure.classify(error, true) == KafkaFailure.METADATA_UNAVAILABLE) {
                bounced = true;
                return;
            }
            pendingBytes.addAndGet(-cost);
            pendingRecords.decrementAndGet();
            if (error == null) {
                long now = System.nanoTime();
                ackLatency.record(now - startNanos, TimeUnit.NANOSECONDS);
                lastAckNanos = now;
                if (!metadataRetryAt.isEmpty()) {
                    metadataRetryAt.remove(topic);
                }
                if (!knownTopics.contains(topic)) {
                    // a lock-free read on the hot path; the set changes only when a topic is first acknowledged
                    knownTopics.add(topic);
                }
                acknowledged.increment();
                complete(null);
                return;
            }
            KafkaFailure cause = KafkaFailure.classify(error, sending);
            if (cause == KafkaFailure.METADATA_UNAVAILABLE) {
                metadataRetryAt.put(topic, System.nanoTime() + METADATA_RETRY_NANOS);
            }
            count(cause, topic, error);
            completeExceptionally(cause.immediate() ? new UplinkRejectedException("kafka: " + cause.label()) : error);
        }
    }

}
