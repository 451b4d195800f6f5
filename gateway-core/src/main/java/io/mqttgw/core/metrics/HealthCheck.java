package io.mqttgw.core.metrics;

import io.mqttgw.core.spi.HealthStatus;
import java.util.function.Supplier;

/** One named part of the readiness report ({@code /health/ready}). */
public record HealthCheck(String name, Supplier<HealthStatus> status) {
}
