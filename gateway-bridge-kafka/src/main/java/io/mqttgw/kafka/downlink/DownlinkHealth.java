package io.mqttgw.kafka.downlink;

import io.mqttgw.core.spi.HealthStatus;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the downlink consumer reaches Kafka: degraded when a probe or a commit failed more recently than anything
 * succeeded, or once the consumer is closed. The change either way is logged once, not every failed probe.
 *
 * <p>Threading: {@link #contact} and {@link #failure} are called by the {@code kafka-downlink-consumer} thread (commit
 * callbacks run inside its poll); {@link #health} by any thread. Thread-safe through volatile fields.
 */
final class DownlinkHealth {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaDownlinkSource.class);

    private final String topic;
    private final BooleanSupplier running;
    private volatile long lastContactNanos = System.nanoTime();
    private volatile long lastFailureNanos;
    private volatile String lastFailure;

    DownlinkHealth(String topic, BooleanSupplier running) {
        this.topic = topic;
        this.running = running;
    }

    /** Kafka answered. */
    void contact() {
        boolean wasDown = !health().up();
        lastContactNanos = System.nanoTime();
        if (wasDown && running.getAsBoolean()) {
            LOG.info("Kafka downlink answers again ({})", topic);
        }
    }

    void failure(String detail) {
        boolean wasUp = health().up();
        lastFailure = detail;
        lastFailureNanos = System.nanoTime();
        if (wasUp) {
            LOG.warn("Kafka downlink degraded: {}", detail);
        }
    }

    HealthStatus health() {
        String failure = lastFailure;
        if (!running.getAsBoolean()) {
            return HealthStatus.degraded("kafka downlink consumer closed");
        }
        if (failure != null && lastFailureNanos - lastContactNanos > 0) {
            return HealthStatus.degraded("kafka downlink: " + failure);
        }
        return HealthStatus.UP;
    }
}
