package io.mqttgw.deploy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.layout.template.json.util.JsonReader;
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
    void everyPanelHasALegendAndEveryPerNodeRatePanelAFleetWideTotal() throws IOException {
        Map<?, ?> dashboard = (Map<?, ?>) JsonReader.read(read(DASHBOARD));
        Pattern perNode = Pattern.compile("by \\([^)]*\\bnode\\b[^)]*\\)");
        Pattern metric = Pattern.compile("\\b((?:mqttgw|jvm|process)_[a-z0-9_]+)\\{");
        int perNodeRatePanels = 0;
        for (Object o : (List<?>) dashboard.get("panels")) {
            Map<?, ?> panel = (Map<?, ?>) o;
            if ("row".equals(panel.get("type"))) {
                continue;
            }
            String title = (String) panel.get("title");
            Map<?, ?> options = (Map<?, ?>) panel.get("options");
            Map<?, ?> legend = options == null ? null : (Map<?, ?>) options.get("legend");
            assertTrue(legend != null && Boolean.TRUE.equals(legend.get("showLegend")), title + ": no legend shown");
            List<Map<?, ?>> targets = new ArrayList<>();
            for (Object t : (List<?>) panel.get("targets")) {
                targets.add((Map<?, ?>) t);
            }
            for (Map<?, ?> t : targets) {
                // without it Grafana names a series by its whole label set, unreadable in a narrow panel
                Object format = t.get("legendFormat");
                assertTrue(format instanceof String f && !f.isBlank(),
                        title + ": no legendFormat for " + t.get("expr"));
            }
            for (Map<?, ?> t : targets) {
                String expr = (String) t.get("expr");
                if (!expr.contains("rate(") || !perNode.matcher(expr).find()) {
                    continue;
                }
                perNodeRatePanels++;
                Matcher name = metric.matcher(expr);
                assertTrue(name.find(), expr);
                String series = name.group(1);
                assertTrue(targets.stream().map(x -> (String) x.get("expr")).anyMatch(x -> x.contains(series + "{")
                        && x.contains("rate(") && !perNode.matcher(x).find()),
                        title + ": no fleet-wide total of " + series + " beside its per-node series");
            }
        }
        assertTrue(perNodeRatePanels >= 5, "per-node rate panels found: " + perNodeRatePanels);
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
