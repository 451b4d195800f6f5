package io.mqttgw.deploy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The alert rules are valid ({@code promtool check rules}), their expressions fire on the series of
 * {@code alerts_test.yml} and stay quiet on its near misses ({@code promtool test rules}), every alert is tested and
 * has a runbook paragraph in the README. promtool comes with Debian's {@code prometheus} package, which
 * {@code .ci/run} unpacks (environment variable PROMTOOL); without it the promtool checks are skipped.
 */
class PrometheusRulesTest {
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s+- alert: (\\S+)");
    private static final Pattern TESTED = Pattern.compile("(?m)^\\s+alertname: (\\S+)");
    private static final Pattern RUNBOOK = Pattern.compile("runbook_url: \"README\\.md#([a-z0-9-]+)\"");

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        assertEquals("", promtool("check", "rules", "alerts.yml"));
    }

    @Test
    void everyAlertFiresOnItsTestSeriesAndNotOnTheNearMisses() throws Exception {
        assertEquals("", promtool("test", "rules", "alerts_test.yml"));
    }

    @Test
    void everyAlertIsTestedAndHasARunbookInTheReadme() throws IOException {
        String alerts = MonitoringFilesTest.read(MonitoringFilesTest.ALERTS);
        String tests = MonitoringFilesTest.read(MonitoringFilesTest.ALERTS_TEST);
        String readme = MonitoringFilesTest.read("README.md");
        List<String> alertNames = all(ALERT, alerts);
        assertTrue(alertNames.size() >= 12, alertNames.toString());
        List<String> tested = all(TESTED, tests);
        for (String alert : alertNames) {
            assertTrue(tested.contains(alert), alert + " has no test in alerts_test.yml");
        }
        for (String anchor : all(RUNBOOK, alerts)) {
            // GitHub's anchor of a heading "#### MqttGatewayOverloaded" is "mqttgatewayoverloaded"
            assertTrue(readme.toLowerCase(Locale.ROOT).contains("\n#### " + anchor + "\n"),
                    "README.md has no runbook heading for #"
                    + anchor);
        }
        assertEquals(alertNames.size(), all(RUNBOOK, alerts).size(), "every alert names its runbook");
    }

    private static List<String> all(Pattern p, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** Runs promtool in deploy/prometheus; returns "" on success, else its output. */
    private static String promtool(String... args) throws Exception {
        // PROMTOOL: .ci/run's copy taken out of the Debian package; else the installed one
        String configured = System.getenv("PROMTOOL");
        Path promtool = Stream.of(configured == null ? "" : configured, "/usr/bin/promtool", "/usr/local/bin/promtool")
                .filter(p -> !p.isEmpty()).map(Path::of).filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(promtool != null, "promtool is not installed (Debian package prometheus)");
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(ExportedMetrics.repoRoot().resolve("deploy/prometheus")
                .toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        return p.exitValue() == 0 ? "" : output;
    }
}
