package io.mqttgw.bench.sim.report;

import io.mqttgw.bench.sim.scenario.GatewaySnapshot;
import io.mqttgw.bench.sim.scenario.RunResult;
import io.mqttgw.bench.sim.scenario.Sample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Writes {@code summary.json} and {@code report.html} for a run: the headline table ({@link Headline}), charts of
 * connections, handshake and message rates, latency percentiles and failures by reason over time, the gateway
 * snapshots as a table and the summary in a collapsed block; or a page comparing several saved runs.
 * The HTML has no scripts and loads nothing. Stateless.
 */
public final class HtmlReport {
    private HtmlReport() {
    }

    public static void write(RunResult r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.json"), SummaryJson.write(r.summary()) + "\n");
        Files.writeString(dir.resolve("report.html"), html(r));
    }

    static String html(RunResult r) {
        List<Sample> s = r.samples();
        double[] x = s.stream().mapToDouble(Sample::t).toArray();
        String scenario = String.valueOf(r.summary().get("scenario"));
        StringBuilder sb = new StringBuilder();
        head(sb, "mqttgw bench: " + scenario);
        sb.append("<h1>mqttgw bench: ").append(SvgChart.esc(scenario)).append(", MQTT ")
                .append(SvgChart.esc(String.valueOf(r.summary().getOrDefault("mqttVersion", "3.1.1"))))
                .append(r.ok() ? " (goal met)" : " (goal not met)").append("</h1>");
        sb.append("<p>started ").append(SvgChart.esc(String.valueOf(r.summary().get("started"))))
                .append(", devices ").append(r.summary().get("devices")).append("</p>");
        sb.append(Headline.table(List.of(scenario + " (MQTT " + r.summary().getOrDefault("mqttVersion", "3.1.1") + ")"),
                List.of(r.summary())));
        Object problems = r.summary().get("problems");
        if (problems instanceof List<?> l && !l.isEmpty()) {
            sb.append("<h2>Problems</h2><ul>");
            l.forEach(p -> sb.append("<li>").append(SvgChart.esc(String.valueOf(p))).append("</li>"));
            sb.append("</ul>");
        }
        sb.append(chart("Connections", "devices", x, r, new String[] {"connected", "connecting"},
                List.of(v -> v.connected(), v -> v.connecting())));
        int nodes = s.stream().mapToInt(v -> v.nodeConnected().size()).max().orElse(0);
        if (nodes > 0) {
            SvgChart perNode = new SvgChart("Connections per node (as the bench's balancer counts them)", "devices", x);
            for (int i = 0; i < nodes; i++) {
                int node = i;
                perNode.series("node " + i, s.stream().mapToDouble(v -> node < v.nodeConnected().size()
                        ? v.nodeConnected().get(node) : Double.NaN).toArray());
            }
            marks(perNode, r);
            sb.append(perNode.render());
            sb.append(chart("Reconnects per second (CONNACKs) and failed attempts per second", "per second", x, r,
                    new String[] {"CONNACKs", "failed attempts"},
                    List.of(Sample::connacks, v -> (double) v.failureCount())));
        }
        sb.append(chart("TLS handshakes and CONNACKs per second", "per second", x, r,
                new String[] {"full handshakes", "resumed handshakes", "CONNACKs"},
                List.of(Sample::handshakesFull, Sample::handshakesResumed, Sample::connacks)));
        sb.append(chart("PUBLISH and PUBACK per second", "per second", x, r, new String[] {"published", "acked"},
                List.of(Sample::published, Sample::acked)));
        sb.append(chart("PUBLISH to PUBACK latency", "ms", x, r, new String[] {"p50", "p99", "p99.9"},
                List.of(Sample::ackP50, Sample::ackP99, Sample::ackP999)));
        sb.append(chart("Connect latency (TCP connect to CONNACK)", "ms", x, r, new String[] {"p50", "p99"},
                List.of(Sample::connectP50, Sample::connectP99)));
        Set<String> reasons = new TreeSet<>();
        s.forEach(v -> reasons.addAll(v.failures().keySet()));
        SvgChart failures = new SvgChart("Failures per second by reason; disconnects so far", "per second", x);
        for (String reason : reasons) {
            failures.series(reason, s.stream().mapToDouble(v -> v.failures().getOrDefault(reason, 0L)).toArray());
        }
        failures.rightSeries("disconnects so far (not dropped by the bench)", "devices (cumulative)",
                s.stream().mapToDouble(Sample::unexpectedDisconnects).toArray());
        marks(failures, r);
        sb.append(failures.render());
        sb.append("<h2>Gateway (its /metrics and /proc)</h2><table><tr><th>when</th><th>t (s)</th>"
                + "<th>sessions</th><th>RSS MiB</th><th>heap MiB</th><th>direct MiB</th><th>netty direct MiB</th>"
                + "<th>CPU s</th><th>handshakes new</th><th>resumed</th><th>PUBLISH in</th><th>GC first</th></tr>");
        for (GatewaySnapshot g : r.gateway()) {
            sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%.1f</td><td>%.0f</td><td>%.1f</td><td>%.1f</td>"
                    + "<td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%s</td></tr>",
                    SvgChart.esc(g.label()), g.t(), g.connectionsOpen(), g.rssBytes() / 1048576,
                    g.heapUsedBytes() / 1048576, g.directBufferBytes() / 1048576, g.nettyDirectBytes() / 1048576,
                    g.cpuSeconds(), g.handshakesNew(), g.handshakesResumed(), g.publishIn(), g.gcRun() > 0));
        }
        sb.append("</table>");
        summaryBlock(sb, "summary.json", r.summary());
        return sb.append("</body></html>\n").toString();
    }

    /**
     * A page with the headline of several runs side by side (e.g. the same scenario with --mqtt-version 3.1.1 and
     * 5), each column named by its directory, and each run's summary below.
     */
    public static String compare(List<String> names, List<Map<String, Object>> summaries) {
        StringBuilder sb = new StringBuilder();
        head(sb, "mqttgw bench: comparison");
        sb.append("<h1>mqttgw bench: ").append(summaries.size()).append(" runs side by side</h1>");
        sb.append(Headline.table(names, summaries));
        for (int i = 0; i < names.size(); i++) {
            summaryBlock(sb, names.get(i) + "/summary.json", summaries.get(i));
        }
        return sb.append("</body></html>\n").toString();
    }

    /** The page head; the document is well-formed XML (XHTML syntax) so tools and tests can parse it. */
    private static void head(StringBuilder sb, String title) {
        sb.append("<!DOCTYPE html><html xmlns='http://www.w3.org/1999/xhtml'><head><meta charset='utf-8'/><title>")
                .append(SvgChart.esc(title)).append("</title><style>")
                .append("body{font-family:sans-serif;margin:20px;max-width:1100px}td,th{padding:2px 8px;"
                        + "text-align:right;border-bottom:1px solid #ddd}table.headline th{text-align:left}"
                        + "table.headline td{text-align:left;max-width:420px}pre{background:#f6f6f6;padding:8px;"
                        + "white-space:pre-wrap;word-break:break-all}summary{cursor:pointer;font-weight:bold}"
                        + "</style></head><body>");
    }

    private static void summaryBlock(StringBuilder sb, String name, Map<String, Object> summary) {
        sb.append("<details><summary>").append(SvgChart.esc(name)).append("</summary><pre>")
                .append(SvgChart.esc(SummaryJson.write(summary))).append("</pre></details>");
    }

    private static String chart(String title, String unit, double[] x, RunResult r, String[] names,
                                List<ToDoubleFunction<Sample>> values) {
        SvgChart c = new SvgChart(title, unit, x);
        for (int i = 0; i < names.length; i++) {
            c.series(names[i], r.samples().stream().mapToDouble(values.get(i)).toArray());
        }
        marks(c, r);
        return c.render();
    }

    private static void marks(SvgChart c, RunResult r) {
        for (String[] m : r.marks()) {
            c.mark(Double.parseDouble(m[0]), m[1]);
        }
    }
}
