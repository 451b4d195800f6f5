package io.mqttgw.bench.sim.scenario;

import java.util.List;
import java.util.Map;

/**
 * One second of the run, summed over workers: gauges, per-second rates, failures in that second by reason, and
 * latency percentiles in milliseconds (NaN when nothing was measured), and the devices connected to each node when
 * the bench balances over several (else empty). Immutable.
 */
public record Sample(double t, String phase, int connected, int connecting, double handshakesFull,
                     double handshakesResumed, double connacks, Map<String, Long> failures, double published,
                     double acked, double ackP50, double ackP99, double ackP999, double connectP50,
                     double connectP99, long dropped, long unexpectedDisconnects, List<Integer> nodeConnected) {
    public Sample {
        failures = Map.copyOf(failures);
        nodeConnected = List.copyOf(nodeConnected);
    }

    /** A sample of a run against one gateway. */
    public Sample(double t, String phase, int connected, int connecting, double handshakesFull,
                  double handshakesResumed, double connacks, Map<String, Long> failures, double published,
                  double acked, double ackP50, double ackP99, double ackP999, double connectP50,
                  double connectP99, long dropped, long unexpectedDisconnects) {
        this(t, phase, connected, connecting, handshakesFull, handshakesResumed, connacks, failures, published, acked,
                ackP50, ackP99, ackP999, connectP50, connectP99, dropped, unexpectedDisconnects, List.of());
    }

    public long failureCount() {
        // attempts only: the count of devices that failed again is not one
        return failures.entrySet().stream()
                .filter(e -> !e.getKey().equals(io.mqttgw.bench.sim.device.FailureReasons.DEVICE_FAILED_AGAIN))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
