package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mqttgw.core.spi.DownlinkTarget;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Meters of messages on their way to devices: outcomes, retransmissions, what is in flight, the time to the device's
 * acknowledgement, and retained messages stored, deleted or refused. Created once, so counting is one increment.
 *
 * <p>Thread-safe; counted from every event loop and the downlink source's threads, read at scrape time on the admin
 * thread.
 */
final class DownlinkMeters {
    private final Map<DownlinkTarget.Outcome, Counter> outcomes = new EnumMap<>(DownlinkTarget.Outcome.class);
    private final Counter retried;
    private final LongAdder inflight = new LongAdder();
    private final Timer latency;
    private final Map<String, Counter> retained = new HashMap<>();
    private final Map<String, Counter> moved = new HashMap<>();

    DownlinkMeters(MeterRegistry registry) {
        for (DownlinkTarget.Outcome o : DownlinkTarget.Outcome.values()) {
            outcomes.put(o, Counter.builder("mqttgw.downlink.messages").tag("outcome",
                    o.name().toLowerCase(Locale.ROOT)).description("Downlink messages, by outcome").register(registry));
        }
        retried = Counter.builder("mqttgw.downlink.retransmissions")
                .description("Downlink PUBLISHes (or PUBRELs) sent again with DUP after downlink.retry-interval")
                .register(registry);
        Gauge.builder("mqttgw.downlink.inflight", inflight, LongAdder::sum)
                .description("QoS 1/2 downlink messages sent and not yet acknowledged").register(registry);
        latency = Timer.builder("mqttgw.downlink.ack.latency")
                .description("From hand-over to the device's acknowledgement (QoS 1/2)").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1)).register(registry);
        for (String result : new String[] {"stored", "deleted", "refused"}) {
            retained.put(result, Counter.builder("mqttgw.downlink.retained").tag("result", result)
                    .description("Retained downlink messages stored, deleted (empty payload) or refused (store full "
                            + "or failing)").register(registry));
        }
        for (String result : new String[] {"forwarded", "fallback"}) {
            moved.put(result, Counter.builder("mqttgw.downlink.moved").tag("result", result)
                    .description("Downlink messages for a device not connected here: handed to the node the route "
                            + "table names (forwarded), or kept here as if offline since that node did not take them "
                            + "or the route table did not answer (fallback)").register(registry));
        }
    }

    Counter outcomes(DownlinkTarget.Outcome outcome) {
        return outcomes.get(outcome);
    }

    Counter retried() {
        return retried;
    }

    LongAdder inflight() {
        return inflight;
    }

    Timer latency() {
        return latency;
    }

    /** @param result stored, deleted or refused */
    Counter retained(String result) {
        return retained.get(result);
    }

    /** @param result forwarded or fallback */
    Counter moved(String result) {
        return moved.get(result);
    }
}
