package io.mqttgw.bench.sim.scenario;

/** A run that cannot start or continue for a reason outside the bench (gateway unreachable, a worker died). */
public final class ScenarioException extends Exception {
    private static final long serialVersionUID = 1L;

    public ScenarioException(String message) {
        super(message);
    }
}
