package io.mqttgw.deploy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Node;

/**
 * The alert rules are valid ({@code promtool check rules}), their expressions fire on the series of
 * {@code alerts_test.yml} and stay quiet on its near misses ({@code promtool test rules}), every alert is tested and
 * has a runbook paragraph: an absolute link under the project's URL (root pom) to a heading of a document in this
 * repository. promtool comes with Debian's {@code prometheus} package, which
 * {@code .ci/run} unpacks (environment variable PROMTOOL); without it the promtool checks are skipped.
 */
class PrometheusRulesTest {
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s+- alert: (\\S+)");
    private static final Pattern TESTED = Pattern.compile("(?m)^\\s+alertname: (\\S+)");
    private static final Pattern RUNBOOK = Pattern.compile("runbook_url: \"([^\"]*)\"");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} +(.+?) *$");

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        assertEquals("", promtool("check", "rules", "alerts.yml"));
    }

    @Test
    void everyAlertFiresOnItsTestSeriesAndNotOnTheNearMisses() throws Exception {
        assertEquals("", promtool("test", "rules", "alerts_test.yml"));
    }

    @Test
    void everyAlertIsTested() throws IOException {
        String alerts = MonitoringFilesTest.read(MonitoringFilesTest.ALERTS);
        List<String> alertNames = all(ALERT, alerts);
        assertTrue(alertNames.size() >= 12, alertNames.toString());
        List<String> tested = all(TESTED, MonitoringFilesTest.read(MonitoringFilesTest.ALERTS_TEST));
        for (String alert : alertNames) {
            assertTrue(tested.contains(alert), alert + " has no test in alerts_test.yml");
        }
    }

    @Test
    void everyRunbookLinkIsAnAbsoluteUrlToAHeadingOfADocumentInTheRepository() throws Exception {
        String alerts = MonitoringFilesTest.read(MonitoringFilesTest.ALERTS);
        String prefix = projectUrl() + "/blob/main/";
        List<String> links = all(RUNBOOK, alerts);
        assertEquals(all(ALERT, alerts).size(), links.size(), "every alert names its runbook");
        // promtool compares the tests' expected annotations with the rules', so the tests carry the same links
        assertEquals(new TreeSet<>(links), new TreeSet<>(all(RUNBOOK,
                MonitoringFilesTest.read(MonitoringFilesTest.ALERTS_TEST))), "alerts_test.yml's runbook links");
        for (String link : links) {
            assertTrue(link.startsWith(prefix) && link.indexOf('#') > prefix.length(),
                    link + " is not " + prefix + "FILE#ANCHOR (the root pom's <url>)");
            String file = link.substring(prefix.length(), link.indexOf('#'));
            String anchor = link.substring(link.indexOf('#') + 1);
            Path doc = ExportedMetrics.repoRoot().resolve(file);
            assertTrue(Files.isRegularFile(doc), link + ": no " + file + " in the repository");
            Set<String> anchors = anchors(Files.readString(doc, StandardCharsets.UTF_8));
            assertTrue(anchors.contains(anchor), link + ": " + file + " has no heading with the anchor #" + anchor);
        }
    }

    @Test
    void headingAnchorsAreTheOnesGitHubMakes() {
        assertEquals(Set.of("mqttgatewayoverloaded", "dashboard-alerts-and-runbooks",
                "the-admin-plane-who-may-do-what"), anchors("#### MqttGatewayOverloaded\ntext\n"
                + "### Dashboard, alerts and runbooks\n### The admin plane: who may do what\n    # not a heading\n"
                + "```\n# a comment in a code block\n```\n"));
    }

    /** The anchors GitHub gives a Markdown document's headings: lower case, punctuation dropped, spaces as '-'. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        for (String heading : all(HEADING, markdown.replaceAll("(?ms)^```.*?^```", ""))) {
            anchors.add(heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    /** The project's {@code <url>} in the root pom. */
    private static String projectUrl() throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document pom = factory.newDocumentBuilder().parse(ExportedMetrics.repoRoot().resolve("pom.xml").toFile());
        for (Node n = pom.getDocumentElement().getFirstChild(); n != null; n = n.getNextSibling()) {
            if ("url".equals(n.getNodeName())) {
                String url = n.getTextContent().strip();
                assertTrue(url.startsWith("https://"), "the root pom's <url> " + url);
                return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
            }
        }
        throw new AssertionError("the root pom has no <url>: the runbook links are built on it");
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
