package io.mqttgw.deploy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Grafana dashboard and the Prometheus rules (and their tests) query only metrics the gateway exports. */
class MonitoringFilesTest {
    static final String DASHBOARD = "deploy/grafana/mqtt-gateway-dashboard.json";
    static final String ALERTS = "deploy/prometheus/alerts.yml";
    static final String ALERTS_TEST = "deploy/prometheus/alerts_test.yml";

    static String read(String file) throws IOException {
        return Files.readString(ExportedMetrics.repoRoot().resolve(file));
    }

    @Test
    void dashboardQueriesOnlyMetricsTheGatewayExports() throws IOException {
        assertEquals(Set.of(), ExportedMetrics.unknownNames(read(DASHBOARD)),
                "the dashboard queries metrics the gateway does not export");
    }

    @Test
    void dashboardFiltersByNodeRatesOverTheRateIntervalAndHasARowPerArea() throws IOException {
        String dashboard = read(DASHBOARD);
        assertTrue(dashboard.contains("\"name\": \"node\""), "no node variable");
        List<String> exprs = new ArrayList<>();
        Matcher m = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard);
        while (m.find()) {
            exprs.add(m.group(1).replace("\\\"", "\""));
        }
        assertTrue(exprs.size() > 40, exprs.toString());
        for (String expr : exprs) {
            assertTrue(expr.contains("node=~\"$node\""), "not filtered by the node variable: " + expr);
            Matcher range = Pattern.compile("\\[([^\\]]+)\\]").matcher(expr);
            while (range.find()) {
                assertEquals("$__rate_interval", range.group(1), "a fixed range in " + expr);
            }
        }
        for (String row : List.of("Sessions", "TLS", "Redis routes", "Auth", "Downlink")) {
            assertTrue(dashboard.contains("\"type\": \"row\",\n      \"title\": \"" + row + "\""), "no row " + row);
        }
    }

    @Test
    void alertsQueryOnlyMetricsTheGatewayExports() throws IOException {
        assertEquals(Set.of(), ExportedMetrics.unknownNames(read(ALERTS)),
                "the alert rules query metrics the gateway does not export");
        assertEquals(Set.of(), ExportedMetrics.unknownNames(read(ALERTS_TEST)),
                "the alert rule tests feed series the gateway does not export");
    }

    @Test
    void aMisspelledOrWronglySuffixedNameIsCaught() {
        // the check itself: a gauge queried as a counter, a counter without _total, an invented name
        assertEquals(Set.of("mqttgw_connections_open_total", "mqttgw_connects", "mqttgw_no_such_thing"),
                ExportedMetrics.unknownNames("sum(rate(mqttgw_connections_open_total[5m])) mqttgw_connects "
                        + "mqttgw_no_such_thing mqttgw_connects_total mqttgw_tls_crl_age_seconds"));
    }

    @Test
    void everyModulesMetersAreListed() {
        Set<String> names = ExportedMetrics.prometheusNames();
        for (String name : Set.of("mqttgw_connections_open", "mqttgw_received_bytes_total",
                "mqttgw_kafka_ack_latency_seconds_bucket", "mqttgw_routes_redis_batch_size_count",
                "mqttgw_auth_breaker_opened_total", "mqttgw_auth_http_latency_seconds_count",
                "mqttgw_tls_crl_next_update_seconds", "mqttgw_uplink_file_queue_depth")) {
            assertTrue(names.contains(name), name + " missing from " + names);
        }
    }
}
