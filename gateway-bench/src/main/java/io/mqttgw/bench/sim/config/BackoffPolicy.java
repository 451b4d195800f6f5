package io.mqttgw.bench.sim.config;

import java.time.Duration;

/**
 * Reconnect delays: exponential from {@code base}, capped at {@code max}, with full jitter
 * ({@link io.mqttgw.core.retry.FullJitterBackoff}).
 */
public record BackoffPolicy(Duration base, Duration max) {
}
