package io.mqttgw.bench.sim.scenario;

import java.util.List;
import java.util.Map;

/**
 * The outcome of a run: the JSON-ready summary, the per-second timeline with its phase marks, the gateway
 * snapshots, and whether the scenario reached its goal (all connected, all acknowledged, recovered). Immutable.
 */
public record RunResult(boolean ok, Map<String, Object> summary, List<Sample> samples, List<String[]> marks,
                        List<GatewaySnapshot> gateway) {
    public RunResult {
        summary = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(summary));
        samples = List.copyOf(samples);
        marks = List.copyOf(marks);
        gateway = List.copyOf(gateway);
    }
}
