package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.admin.OperatorCredentials;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.tls.CertificateExpiryMeter;

/**
 * The gauges that read the node's wired parts rather than count events: the transport, sessions open, whether the
 * device ports accept, and how long the certificates in use stay valid. Registered once while the node is wired,
 * before any listener binds, so a scrape never sees a node without them.
 *
 * <p>Registered by the thread that starts the node; read at scrape time on the admin thread (each reads state that is
 * safe to read from any thread).
 */
final class NodeGauges {
    private NodeGauges() {
    }

    static void register(GatewayConfig config, Transport transport, MeterRegistry meters, GatewayMetrics metrics,
                         ChannelRegistry registry, DeviceListeners listeners, OperatorCredentials operators) {
        // which socket transport a node runs joins onto its CPU and latency series, so a fleet that mixes transports
        // (auto falls back where the native one is unavailable) can be told apart
        Gauge.builder("mqttgw.transport.info", () -> 1).tag("transport", transport.name())
                .description("1, labelled with the socket transport the device listeners run on").register(meters);
        metrics.gauge("mqttgw.connections.open", "MQTT sessions open (CONNACK accepted)", registry::size);
        // what alerts.yml's MqttGatewayListenerClosed watches: the ports themselves, not the overload level (which
        // stays 0 when a re-bind after recovery failed, and is 1 with overload.close-listeners: false)
        metrics.gauge("mqttgw.listeners.open", "1 while the device listeners accept connections, 0 while closed "
                + "(overload, a failed re-bind, shutdown)", () -> listeners.accepting() ? 1 : 0);
        if (operators != null && !Double.isNaN(operators.serverCertificateSecondsLeft())) {
            Gauge.builder("mqttgw.tls.server.certificate.expiry", operators,
                            OperatorCredentials::serverCertificateSecondsLeft)
                    .tag("listener", "operations").baseUnit("seconds")
                    .description("Time until the notAfter of the listener's server certificate; negative once past")
                    .register(meters);
        }
        if (config.tls().enabled()) {
            new CertificateExpiryMeter(registry, config.identity().expiryWarning(), meters);
        }
    }
}
