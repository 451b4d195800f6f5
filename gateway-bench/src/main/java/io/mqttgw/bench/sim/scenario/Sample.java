package io.mqttgw.bench.sim.scenario;

import java.util.Map;

/**
 * One second of the run, summed over workers: gauges, per-second rates, failures in that second by reason, and
 * latency percentiles in milliseconds (NaN when nothing was measured). Immutable.
 */
public record Sample(double t, String phase, int connected, int connecting, double handshakesFull,
                     double handshakesResumed, double connacks, Map<String, Long> failures, double published,
                     double acked, double ackP50, double ackP99, double ackP999, double connectP50,
                     double connectP99, long dropped, long unexpectedDisconnects) {
    public Sample {
        failures = Map.copyOf(failures);
    }

    public long failureCount() {
        // attempts only: the count of devices that failed again is not one
        return failures.entrySet().stream()
                .filter(e -> !e.getKey().equals(io.mqttgw.bench.sim.device.FailureReasons.DEVICE_FAILED_AGAIN))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
