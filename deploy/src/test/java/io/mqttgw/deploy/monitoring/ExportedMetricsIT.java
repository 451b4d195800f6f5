package io.mqttgw.deploy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ExportedMetrics} reads meter names from the sources; here a running TLS node's {@code /metrics} proves the
 * naming rules it applies: every gateway sample the node serves is on its list, and the label values the alert
 * rules select on ({@code signal="..."}) are ones the node serves.
 */
class ExportedMetricsIT {
    private static final Pattern SAMPLE = Pattern.compile("(?m)^(mqttgw_[a-z0-9_]+)[{ ]");
    private static final Pattern SIGNAL = Pattern.compile("signal=\"([a-z_]+)\"");

    @TempDir
    Path dir;

    @Test
    void theSourceListHasEverySampleARunningNodeServes() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Set<String> served = new TreeSet<>();
            Matcher m = SAMPLE.matcher(metrics);
            while (m.find()) {
                served.add(m.group(1));
            }
            assertTrue(served.size() > 30, "too few gateway samples served:\n" + metrics);
            served.removeAll(ExportedMetrics.prometheusNames());
            assertEquals(Set.of(), served, "samples a node serves under names ExportedMetrics does not derive");

            Set<String> signals = new TreeSet<>();
            Matcher s = SIGNAL.matcher(MonitoringFilesTest.read(MonitoringFilesTest.ALERTS)
                    + MonitoringFilesTest.read(MonitoringFilesTest.DASHBOARD));
            while (s.find()) {
                signals.add(s.group(1));
            }
            assertTrue(signals.size() >= 4, signals.toString());
            for (String signal : signals) {
                assertTrue(metrics.contains("signal=\"" + signal + "\""), "no overload signal " + signal);
            }
        }
    }
}
