package io.mqttgw.kafka.uplink;

import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.kafka.testkit.KafkaBroker;

/** The uplink settings of the tests that take Kafka away under a gateway: one place, so the outages compare. */
final class OutageUplink {
    private OutageUplink() {
    }

    /**
     * {@code gateway} publishing into {@code topic} on {@code broker}: a request timeout well under the outages, a
     * delivery timeout well over them (a record waits rather than fails), and {@code maxPendingBytes} awaiting Kafka.
     */
    static TestGateway into(TestGateway gateway, KafkaBroker broker, String topic, long maxPendingBytes) {
        return gateway.with("uplink.sink", "kafka")
                .with("uplink.kafka.bootstrap-servers", broker.bootstrapServers())
                .with("uplink.kafka.default-topic", topic)
                .with("uplink.kafka.linger", "5ms")
                .with("uplink.kafka.request-timeout", "5s")
                .with("uplink.kafka.delivery-timeout", "5m")
                .with("uplink.kafka.max-pending-bytes", Long.toString(maxPendingBytes))
                .with("uplink.kafka.warmup-timeout", "30s");
    }
}
