package io.mqttgw.kafka.uplink;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.RoomWait;
import io.mqttgw.core.spi.RoomWaiters;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.kafka.mapping.PropertyHeaders;
import io.mqttgw.kafka.mapping.TopicMapping;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
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
 * {@link UplinkRejectedException}. Past the bound is a refusal for capacity: the caller may wait for room
 * ({@link #waitForRoom}); waiters are woken in order once the bytes awaiting Kafka fall under half the bound, about
 * as many as the free half takes, by the thread that freed the bytes (the producer's I/O thread). Completions run on
 * the producer's I/O thread; the gateway hops back to the channel's event loop. Failures are counted by cause and
 * logged at most once a minute per cause.
 *
 * <p>Kafka away: the producer forgets a topic's metadata when every broker is stopped (a broker that shuts down in
 * order reports its partitions leaderless), and then refuses each record for it at once. For a topic Kafka has
 * known since this node started (warmed up or acknowledged), such a record is not refused but parked, in order,
 * with the topic's later records behind it, and handed to the producer again once the metadata is back: its PUBLISH
 * stays unacknowledged and the device connected, as when Kafka only slows down. Parked records stay charged against
 * {@code uplink.kafka.max-pending-bytes} and fail as {@code timeout} after {@code uplink.kafka.delivery-timeout}. A
 * topic never known is still refused at once (it may not exist). One named thread retries parked records every
 * {@value #PARKED_RETRY_MILLIS} ms while there are any ({@link ParkedRecords}); what is counted is in
 * {@link UplinkMetrics}. This class builds the records, bounds the bytes awaiting Kafka and completes each record's
 * stage.
 */
public final class KafkaUplinkSink implements UplinkSink {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaUplinkSink.class);
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
    private final ParkedRecords parked;
    private final UplinkMetrics metrics;
    private final RoomWaiters waiters;
    private volatile boolean closed;

    public KafkaUplinkSink(Producer<byte[], byte[]> producer, TopicMapping mapping, long maxPendingBytes,
                           String nodeId, MeterRegistry meters) {
        this(producer, mapping, maxPendingBytes, Duration.ofSeconds(30), nodeId, meters);
    }

    /** @param deliveryTimeout how long a record may stay parked while its topic's metadata is missing */
    public KafkaUplinkSink(Producer<byte[], byte[]> producer, TopicMapping mapping, long maxPendingBytes,
                           Duration deliveryTimeout, String nodeId, MeterRegistry meters) {
        this.producer = producer;
        this.mapping = mapping;
        this.maxPendingBytes = maxPendingBytes;
        this.nodeId = nodeId.getBytes(StandardCharsets.UTF_8);
        this.metrics = new UplinkMetrics(meters);
        this.waiters = new RoomWaiters(maxPendingBytes, maxPendingBytes / 2);
        this.parked = new ParkedRecords(PARKED_RETRY_MILLIS, deliveryTimeout.toNanos(), metrics.parkedRecords,
                this::hand, () -> closed);
    }

    @Override
    public CompletionStage<Void> send(UplinkMessage message) {
        if (closed) {
            return refuse(KafkaFailure.CLOSED, message.topic(), null);
        }
        int cost = cost(message);
        if (metrics.pendingBytes.addAndGet(cost) > maxPendingBytes) {
            waiters.released(metrics.pendingBytes.addAndGet(-cost));
            metrics.count(KafkaFailure.PENDING_BYTES_FULL, message.topic(), null);
            return CompletableFuture.failedFuture(new UplinkRejectedException("kafka: "
                    + KafkaFailure.PENDING_BYTES_FULL.label(), true));
        }
        String topic = mapping.kafkaTopic(message.topic());
        boolean known = knownTopics.contains(topic);
        if (!known && !metadataRetryAt.isEmpty()) {
            Long retryAt = metadataRetryAt.get(topic);
            if (retryAt != null && System.nanoTime() - retryAt < 0) {
                waiters.released(metrics.pendingBytes.addAndGet(-cost));
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
        metrics.sent();
        if (known && parked.offerBehind(topic, delivery)) {
            return delivery;
        }
        if (!hand(delivery)) {
            metrics.degraded(KafkaFailure.METADATA_UNAVAILABLE);
            parked.park(delivery);
        }
        return delivery;
    }

    private static int cost(UplinkMessage message) {
        return message.payload().length + message.topic().length() + RECORD_OVERHEAD;
    }

    @Override
    public boolean waitForRoom(RoomWait wait, UplinkMessage refused) {
        if (closed) {
            return false;
        }
        waiters.add(wait, cost(refused), metrics.pendingBytes.get());
        return true;
    }

    @Override
    public void endWait(RoomWait wait) {
        waiters.done(wait);
    }

    /** Connections waiting for room under {@code uplink.kafka.max-pending-bytes}. */
    int roomWaiters() {
        return waiters.waiting();
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

    /** Marks a topic as one Kafka knows (its metadata arrived at warm-up). */
    void knownTopic(String topic) {
        knownTopics.add(topic);
    }

    private CompletionStage<Void> refuse(KafkaFailure cause, String topic, Exception error) {
        metrics.count(cause, topic, error);
        return CompletableFuture.failedFuture(new UplinkRejectedException("kafka: " + cause.label()));
    }

    /** Failures that say something about Kafka since its last acknowledgement make the node report degraded. */
    @Override
    public HealthStatus health() {
        return metrics.health(closed);
    }

    /** Marks the topics' metadata as missing after a failed warm-up, so health reports it until Kafka answers. */
    void warmUpFailed(String detail) {
        metrics.degraded(KafkaFailure.METADATA_UNAVAILABLE);
        LOG.warn("Kafka uplink starts degraded: {}; records are refused until the metadata arrives", detail);
    }

    @Override
    public CompletionStage<Void> close() {
        closed = true;
        // waiters sending again now are refused as closed, which ends their wait
        waiters.wakeAll();
        parked.close();
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
        return metrics.pendingBytes.get();
    }

    /** Bytes awaiting Kafka as a share of {@code uplink.kafka.max-pending-bytes}. */
    @Override
    public double pressure() {
        return (double) metrics.pendingBytes.get() / maxPendingBytes;
    }

    /**
     * The stage of one record and the producer's callback for it: one object per record, not two. Completed on the
     * producer's I/O thread, on the caller of {@code producer.send} when it refuses at once, or by the parked-record
     * retry thread.
     */
    final class Delivery extends CompletableFuture<Void> implements Callback {
        private final int cost;
        private final String topic;
        final ProducerRecord<byte[], byte[]> record;
        final long startNanos = System.nanoTime();
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
            long charge = metrics.pendingBytes.addAndGet(-cost);
            metrics.pendingRecords.decrementAndGet();
            waiters.released(charge);
            if (error == null) {
                metrics.acknowledged(startNanos, System.nanoTime());
                if (!metadataRetryAt.isEmpty()) {
                    metadataRetryAt.remove(topic);
                }
                if (!knownTopics.contains(topic)) {
                    // a lock-free read on the hot path; the set changes only when a topic is first acknowledged
                    knownTopics.add(topic);
                }
                metrics.acknowledgedCount();
                complete(null);
                return;
            }
            KafkaFailure cause = KafkaFailure.classify(error, sending);
            if (cause == KafkaFailure.METADATA_UNAVAILABLE) {
                metadataRetryAt.put(topic, System.nanoTime() + METADATA_RETRY_NANOS);
            }
            metrics.count(cause, topic, error);
            completeExceptionally(cause.immediate() ? new UplinkRejectedException("kafka: " + cause.label()) : error);
        }
    }
}
