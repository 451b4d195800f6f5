package io.mqttgw.bench.sim.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The gateway under test: its MQTT-over-TLS address, optionally its admin endpoint (for /metrics) and its process
 * id (for CPU from /proc and a GC before memory is read). {@code nodes} lists the fleet the devices are spread over
 * (one node, the address itself, unless {@code --nodes} names several), {@code balance} how, and
 * {@code healthInterval} how often each node's readiness is polled.
 */
public record GatewayTarget(String host, int port, URI metrics, long pid, List<GatewayNode> nodes,
                            BalancePolicy balance, Duration healthInterval) {
    public GatewayTarget {
        nodes = List.copyOf(nodes);
    }

    /** One gateway, no balancing. */
    public GatewayTarget(String host, int port, URI metrics, long pid) {
        this(host, port, metrics, pid, List.of(new GatewayNode(host, port, null)), BalancePolicy.LEAST_CONN,
                Duration.ofSeconds(1));
    }

    public boolean hasMetrics() {
        return metrics != null;
    }

    public boolean hasPid() {
        return pid > 0;
    }

    /** True when devices are spread over more than one node (the bench then plays the balancer). */
    public boolean isFleet() {
        return nodes.size() > 1;
    }
}
