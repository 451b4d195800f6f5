package io.mqttgw.core.spi;

/** Produces downlink messages (a Kafka consumer, an HTTP endpoint) and hands them to the gateway. */
public interface DownlinkSource {
    /** Starts delivering to {@code target}; returns at once. */
    void start(DownlinkTarget target);

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    default void close() {
    }
}
