package io.mqttgw.kafka.downlink;

import java.time.Duration;
import java.util.Map;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of the downlink consumer: the offsets of the records completed so far are committed (records still in
 * flight will be read again), then the consumer and what hangs on it are closed, each within a bound.
 *
 * <p>Threading: runs on the thread that owns the consumer, {@code kafka-downlink-consumer} as it ends (or the caller
 * of close when that thread never started); blocks for at most the close timeout per step.
 */
final class DownlinkShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaDownlinkSource.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private DownlinkShutdown() {
    }

    static void run(Consumer<byte[], byte[]> consumer, GatewayDelivery delivery, PartitionOffsets offsets,
                    AutoCloseable onClose, IntSupplier inFlight) {
        try {
            if (delivery != null) {
                delivery.drainCompleted();
            }
            Map<TopicPartition, OffsetAndMetadata> committable = offsets.committable();
            if (!committable.isEmpty()) {
                try {
                    consumer.commitSync(committable, CLOSE_TIMEOUT);
                } catch (WakeupException e) {
                    // close()'s wakeup arrived here rather than in poll: it is spent now
                    consumer.commitSync(committable, CLOSE_TIMEOUT);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("Kafka downlink: last offset commit failed ({}); those records will be read again", e.toString());
        }
        try {
            consumer.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.warn("Kafka downlink: closing the consumer: {}", e.toString());
        }
        if (onClose != null) {
            try {
                onClose.close();
            } catch (Exception e) {
                LOG.debug("closing the consumer's metrics", e);
            }
        }
        LOG.info("Kafka downlink stopped ({} deliveries were still in flight)", inFlight.getAsInt());
    }
}
