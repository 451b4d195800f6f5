package io.mqttgw.core.spi;

/** A component's health for {@code /health}: up, or degraded with a short reason. */
public record HealthStatus(boolean up, String detail) {
    public static final HealthStatus UP = new HealthStatus(true, "ok");

    public static HealthStatus degraded(String detail) {
        return new HealthStatus(false, detail);
    }
}
