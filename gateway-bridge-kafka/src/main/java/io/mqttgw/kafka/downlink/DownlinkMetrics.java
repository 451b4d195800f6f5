package io.mqttgw.kafka.downlink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The meters of the Kafka downlink; counters are incremented from the consumer thread and from event loops. */
final class DownlinkMetrics {
    final Counter received;
    final Counter failed;
    final Counter broadcasts;
    final Counter broadcastReceivers;
    final Counter commitsOk;
    final Counter commitsFailed;
    final Timer latency;
    private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
    private final Map<Malformed, Counter> malformed = new EnumMap<>(Malformed.class);

    DownlinkMetrics(MeterRegistry meters, Supplier<Number> inFlight, Supplier<Number> paused) {
        received = Counter.builder("mqttgw.kafka.downlink.records.received")
                .description("Records read from the node's downlink topic").register(meters);
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, Counter.builder("mqttgw.kafka.downlink.outcomes")
                    .tag("outcome", o.name().toLowerCase(Locale.ROOT))
                    .description("Downlink records to one device, by what became of them").register(meters));
        }
        failed = Counter.builder("mqttgw.kafka.downlink.outcomes").tag("outcome", "failed")
                .description("Downlink records to one device, by what became of them").register(meters);
        for (Malformed m : Malformed.values()) {
            malformed.put(m, Counter.builder("mqttgw.kafka.downlink.malformed").tag("cause", m.label())
                    .description("Downlink records skipped as malformed, by cause").register(meters));
        }
        broadcasts = Counter.builder("mqttgw.kafka.downlink.broadcasts")
                .description("Broadcast records handed to the gateway").register(meters);
        broadcastReceivers = Counter.builder("mqttgw.kafka.downlink.broadcast.receivers")
                .description("Devices broadcast records were handed to").register(meters);
        commitsOk = Counter.builder("mqttgw.kafka.downlink.commits").tag("result", "ok")
                .description("Offset commits of the downlink consumer").register(meters);
        commitsFailed = Counter.builder("mqttgw.kafka.downlink.commits").tag("result", "failed")
                .description("Offset commits of the downlink consumer").register(meters);
        latency = Timer.builder("mqttgw.kafka.downlink.latency")
                .description("From the record's timestamp to its delivery (for QoS 1, the device's PUBACK)")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(5)).register(meters);
        Gauge.builder("mqttgw.kafka.downlink.in.flight", inFlight)
                .description("Records handed to the gateway whose delivery has not completed").register(meters);
        Gauge.builder("mqttgw.kafka.downlink.paused", paused)
                .description("1 while the consumer is paused at downlink.kafka.max-in-flight").register(meters);
    }

    void outcome(Outcome outcome) {
        outcomes.get(outcome).increment();
    }

    void malformed(Malformed cause) {
        malformed.get(cause).increment();
    }

    void delivered(long recordTimestampMillis) {
        long ms = System.currentTimeMillis() - recordTimestampMillis;
        if (recordTimestampMillis > 0 && ms >= 0) {
            latency.record(ms, TimeUnit.MILLISECONDS);
        }
    }
}
