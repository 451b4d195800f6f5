package io.mqttgw.bench.sim.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Scenario timing and load: how long to hold, the publish rate and QoS, the storm's drop fraction, backoff and
 * reconnect pause ({@code reconnectAfter}: zero, or how long dropped devices wait before their first attempt),
 * bounds on ramp and recovery (every phase ends by itself), where reports go, the worker JVMs' flags and what
 * {@code bench fleet} does to the nodes.
 */
public record ScenarioOptions(Duration hold, Duration duration, int publishRate, int publishQos, int publishBytes,
                             double dropFraction, BackoffPolicy backoff, Duration reconnectAfter,
                             Duration recoverTimeout, Duration rampTimeout,
                             Duration settle, Path outDir, List<String> workerJvmOptions, NodeAction nodeAction) {
    public ScenarioOptions {
        workerJvmOptions = List.copyOf(workerJvmOptions);
    }
}
