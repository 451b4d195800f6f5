package io.mqttgw.core.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code mqttgw_admin_requests_total{endpoint,result}}: every admin request by endpoint ({@code metrics},
 * {@code live}, {@code ready}, {@code downlink}, {@code broadcast}, {@code clients} (the list), {@code client} (show
 * or kick one), {@code sessions}, {@code reload}, {@code other}) and result ({@code ok},
 * {@code not_ready}, {@code unauthorized}, {@code invalid}, {@code too_large}, {@code not_found},
 * {@code method_not_allowed}, {@code failed}, and for an operation forwarded to the node that holds the device
 * {@code timeout} and {@code busy}). Called on the admin thread; Micrometer finds an existing counter.
 */
final class AdminMetrics {
    private final MeterRegistry registry;

    AdminMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void count(String endpoint, String result) {
        Counter.builder("mqttgw.admin.requests").description("Admin HTTP requests by endpoint and result")
                .tag("endpoint", endpoint).tag("result", result).register(registry).increment();
    }

    /**
     * {@code mqttgw_admin_connections_closed_total{reason}}: admin connections the gateway closed, {@code idle},
     * {@code limit} or {@code tls_handshake}.
     */
    void connectionClosed(String reason) {
        Counter.builder("mqttgw.admin.connections.closed")
                .description("Admin connections closed by the gateway: idle past admin.idle-timeout, the oldest "
                        + "past admin.max-connections, or a refused operator TLS handshake")
                .tag("reason", reason).register(registry).increment();
    }

    /** The metric label of a request path; unknown paths share one label so callers cannot grow the series. */
    static String endpoint(String path) {
        return switch (path) {
            case "/metrics" -> "metrics";
            case "/health/live" -> "live";
            case "/health/ready", "/health" -> "ready";
            case OperationsHandler.DOWNLINK -> "downlink";
            case OperationsHandler.BROADCAST -> "broadcast";
            case ClientOperationsHandler.CLIENTS -> "clients";
            case ConfigReloadHandler.RELOAD -> "reload";
            case DrainHandler.DRAIN -> "drain";
            case RouteVerifyHandler.VERIFY -> "routes_verify";
            default -> path.startsWith(ClientOperationsHandler.CLIENTS + "/") ? "client"
                    : path.startsWith(ClientOperationsHandler.SESSIONS + "/") ? "sessions" : "other";
        };
    }
}
