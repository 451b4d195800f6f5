package io.mqttgw.bench.sim.config;

import java.net.URI;

/**
 * The gateway under test: its MQTT-over-TLS address, optionally its admin endpoint (for /metrics) and its process
 * id (for CPU from /proc and a GC before memory is read).
 */
public record GatewayTarget(String host, int port, URI metrics, long pid) {
    public boolean hasMetrics() {
        return metrics != null;
    }

    public boolean hasPid() {
        return pid > 0;
    }
}
