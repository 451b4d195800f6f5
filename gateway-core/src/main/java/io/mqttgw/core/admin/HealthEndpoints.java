package io.mqttgw.core.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.HealthStatus;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.ArrayList;
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
        return AdminResponses.json(HttpResponseStatus.OK, "status", "LIVE");
    }

    FullHttpResponse ready() {
        String notReady = notReadyReason.get();
        boolean ready = notReady == null;
        List<HealthStatus> statuses = new ArrayList<>(checks.size());
        boolean allUp = true;
        for (HealthCheck check : checks) {
            HealthStatus s = check.status().get();
            statuses.add(s);
            allUp &= s.up();
        }
        String status = !ready ? "DOWN" : allUp ? "UP" : "DEGRADED";
        return AdminResponses.json(ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, g -> {
            g.writeStartObject();
            g.writeObjectFieldStart("checks");
            writeCheck(g, "listeners", ready, ready ? "accepting devices" : notReady);
            for (int i = 0; i < checks.size(); i++) {
                writeCheck(g, checks.get(i).name(), statuses.get(i).up(), statuses.get(i).detail());
            }
            g.writeEndObject();
            g.writeStringField("status", status);
            g.writeEndObject();
        });
    }

    private static void writeCheck(JsonGenerator g, String name, boolean up, String detail) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeBooleanField("up", up);
        g.writeStringField("detail", detail);
        g.writeEndObject();
    }
}
