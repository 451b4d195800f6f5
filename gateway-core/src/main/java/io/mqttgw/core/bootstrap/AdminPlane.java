package io.mqttgw.core.bootstrap;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.admin.AdminServer;
import io.mqttgw.core.admin.HolderOperations;
import io.mqttgw.core.admin.OperatorApi;
import io.mqttgw.core.admin.OperatorCredentials;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.mqtt.downlink.DownlinkDispatcher;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.tls.SslContextStore;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The admin plane wired to the node: the operator credentials, the answers this node gives to operations other
 * nodes forward to it, and the admin HTTP listeners with the operator API over the node's registry and stores.
 *
 * <p>Made, started and closed by the thread that starts and stops the node. The listeners then run on their own
 * {@code admin-http} thread and forwarded operations on the route store's threads; both hand device work to the
 * device's event loop.
 */
final class AdminPlane implements AutoCloseable {
    /** What the admin plane reads and acts on: the node's meters, registry, stores, TLS health and downlink. */
    record NodeParts(PrometheusMeterRegistry meters, GatewayMetrics metrics, ChannelRegistry registry,
                     NodeProviders providers, SslContextStore tls, DownlinkDispatcher downlink, EventLog events) {
    }

    /**
     * The node's controls an operator reaches through the admin plane.
     *
     * @param notReadyReason why the node should get no new devices now, or null when it should
     * @param reload         re-reads the config file for an operator, or null when the node has none
     * @param drain          drains the node on an operator's request
     */
    record Controls(Supplier<String> notReadyReason,
                    Function<String, CompletionStage<OperatorApi.ReloadReport>> reload, OperatorApi.Drain drain) {
    }

    private final GatewayConfig config;
    private final OperatorCredentials operators;
    private AdminServer server;

    /** Reads the operator credentials now: a bad file stops startup before any thread or socket exists. */
    AdminPlane(GatewayConfig config) {
        this.config = config;
        this.operators = config.admin().enabled() && config.admin().operations().enabled()
                ? OperatorCredentials.load(config.admin().operations()) : null;
    }

    /** The operator credentials, or null when operations are not configured. */
    OperatorCredentials operators() {
        return operators;
    }

    /**
     * Serves forwarded operations (whether or not this node has an operations listener itself), then binds the
     * admin listeners when the admin plane is on; returns once they are bound.
     */
    void start(NodeParts node, Controls controls) throws InterruptedException {
        NodeProviders providers = node.providers();
        OperationForwarding forwarding = providers.routes().forwarding().orElse(null);
        if (forwarding != null) {
            // the last hop: a forwarded message is delivered or kept here, never sent on again
            forwarding.serve(new HolderOperations(node.registry(), node.downlink().here(), providers.sessions(),
                    node.metrics(), node.events()));
        }
        if (!config.admin().enabled()) {
            return;
        }
        server = new AdminServer(config.admin(), node.meters(), controls.notReadyReason(),
                providers.healthChecks(node.tls() != null ? node.tls().crlHealth()
                        : new HealthCheck("tls-crl", () -> HealthStatus.UP)),
                node.downlink(), operators, node.events(), config.mqtt().topicLimits(),
                new OperatorApi(config.nodeId(), node.registry(), providers.routes(), providers.sessions(),
                        node.metrics(), config.mqtt().maxClientIdLength(), controls.reload(), controls.drain(),
                        forwarding,
                        SessionPlane.holderBound(config.downlink())));
    }

    /** Port of the read-only listener, or -1 when the admin plane is off. */
    int port() {
        return server == null ? -1 : server.port();
    }

    /** Port of the separate operations listener, or -1 when there is none. */
    int operationsPort() {
        return server == null ? -1 : server.operationsPort();
    }

    @Override
    public String toString() {
        return server == null ? "off" : config.admin().bind() + ":" + server.port();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
