package io.mqttgw.core.admin;

import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.HealthStatus;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.function.Supplier;

/**
 * Liveness and readiness, two questions with different consequences. {@code /health/live}: the process works, so
 * a liveness probe must not restart it; it is 200 whenever the admin thread can answer, overloaded or draining
 * included (a restart would only add a reconnect storm). {@code /health/ready}: send this node new devices; 503
 * (DOWN) while it is overloaded, its listeners are closed or it is shutting down, so a balancer sends them
 * elsewhere. A degraded component (Kafka unreachable) keeps 200 with DEGRADED: every node shares that dependency and
 * taking all of them out would only disconnect the fleet. Called on the admin thread.
 */
final class HealthEndpoints {
    private final Supplier<String> notReadyReason;
    private final List<HealthCheck> checks;

    /**
     * @param notReadyReason why the node should get no new devices now, or null when it should
     * @param checks         named components, reported in the readiness body
     */
    HealthEndpoints(Supplier<String> notReadyReason, List<HealthCheck> checks) {
        this.notReadyReason = notReadyReason;
        this.checks = List.copyOf(checks);
    }

    FullHttpResponse live() {
        return AdminResponses.json(HttpResponseStatus.OK, "{\"status\":\"LIVE\"}");
    }

    FullHttpResponse ready() {
        String notReady = notReadyReason.get();
        boolean ready = notReady == null;
        boolean allUp = true;
        StringBuilder b = new StringBuilder("{\"checks\":{\"listeners\":{\"up\":").append(ready)
                .append(",\"detail\":\"").append(ready ? "accepting devices" : AdminResponses.jsonEscape(notReady))
                .append("\"}");
        for (HealthCheck check : checks) {
            HealthStatus s = check.status().get();
            allUp &= s.up();
            b.append(",\"").append(AdminResponses.jsonEscape(check.name())).append("\":{\"up\":").append(s.up())
                    .append(",\"detail\":\"").append(AdminResponses.jsonEscape(s.detail())).append("\"}");
        }
        String status = !ready ? "DOWN" : allUp ? "UP" : "DEGRADED";
        b.append("},\"status\":\"").append(status).append("\"}");
        return AdminResponses.json(ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                b.toString());
    }
}
