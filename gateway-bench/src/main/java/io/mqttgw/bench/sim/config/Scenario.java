package io.mqttgw.bench.sim.config;

/** The subcommands that run devices against a gateway. */
public enum Scenario {
    /** Ramp to N devices and hold them for a duration. */
    CONNECT,
    /** Ramp, then publish at a target rate and measure PUBLISH to PUBACK latency. */
    PUBLISH,
    /** Ramp, drop a fraction at once, let them reconnect with backoff; time to recover, collateral drops. */
    STORM,
    /** Ramp and hold for a long time with the field traffic profile; report drift. */
    SOAK,
    /** Spread devices over several nodes, then kill one or restart each in turn; time until every device is back. */
    FLEET
}
