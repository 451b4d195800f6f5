package io.mqttgw.bench.sim.config;

import java.util.Map;

/**
 * Everything one bench run needs, validated. {@code workerIndex}/{@code workerCount} are set only inside a worker
 * process; {@code given} holds the options as typed, so the coordinator hands workers exactly what it was given.
 */
public record BenchOptions(Scenario scenario, GatewayTarget target, FleetOptions fleet, TrafficProfile profile,
                           ScenarioOptions run, int workerIndex, int workerCount, Map<String, String> given) {
    public BenchOptions {
        given = Map.copyOf(given);
    }

    public boolean isWorker() {
        return workerCount > 0;
    }
}
