package io.mqttgw.bench.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The headline of a run, read from its summary (so two saved summaries can be set side by side): devices asked and
 * reached, handshake rate, CONNACK and PUBACK latency percentiles, failures by reason, gateway CPU per handshake and
 * per message, memory per connection (with a caveat under {@link #MIN_CONNECTIONS_FOR_MEMORY}), overload episodes
 * and the verdict. Stateless.
 */
final class Headline {
    /** Fewer connections than this make a per-connection memory figure mostly noise (arenas, pools, JIT). */
    static final int MIN_CONNECTIONS_FOR_MEMORY = 5_000;

    /** One row: what it is, and its value per run (plain text, escaped when rendered). */
    record Row(String label, List<String> values) {
    }

    private Headline() {
    }

    /** The headline table for one or more runs, one value column per summary. */
    static String table(List<String> columns, List<Map<String, Object>> summaries) {
        List<Row> rows = rows(summaries);
        StringBuilder sb = new StringBuilder("<table class='headline' id='headline'><thead><tr><th></th>");
        columns.forEach(c -> sb.append("<th>").append(SvgChart.esc(c)).append("</th>"));
        sb.append("</tr></thead><tbody>");
        for (Row r : rows) {
            sb.append("<tr><th>").append(SvgChart.esc(r.label())).append("</th>");
            r.values().forEach(v -> sb.append("<td>").append(SvgChart.esc(v)).append("</td>"));
            sb.append("</tr>");
        }
        return sb.append("</tbody></table>").toString();
    }

    static List<Row> rows(List<Map<String, Object>> summaries) {
        List<Row> rows = new ArrayList<>();
        row(rows, summaries, "Verdict", Headline::verdict);
        row(rows, summaries, "Scenario", s -> str(s.get("scenario")));
        row(rows, summaries, "MQTT version", s -> str(s.getOrDefault("mqttVersion", "3.1.1")));
        row(rows, summaries, "Devices asked / reached", s -> str(s.get("devices")) + " / "
                + whole(num(map(s, "ramp").get("connected"))));
        row(rows, summaries, "Handshake rate (connections/s, ramp)",
                s -> fixed(num(map(s, "ramp").get("connectsPerSecond")), 0));
        row(rows, summaries, "Ramp starts the client missed (short of CPU)",
                s -> whole(num(map(s, "ramp").get("startsMissed"))));
        row(rows, summaries, "CONNACK latency p50 / p99 / p99.9 (ms)",
                s -> percentiles(map(map(s, "ramp"), "connectLatencyMs")));
        row(rows, summaries, "PUBACK latency p50 / p99 / p99.9 (ms)", s -> percentiles(ackLatency(s)));
        row(rows, summaries, "Failures by reason", Headline::failures);
        row(rows, summaries, "Gateway CPU per handshake (ms)", Headline::cpuPerHandshake);
        row(rows, summaries, "Gateway CPU per message (µs)", Headline::cpuPerMessage);
        row(rows, summaries, "Bench client CPU per connect (ms)", Headline::clientCpuPerConnect);
        row(rows, summaries, "Gateway RSS / heap / direct per connection (KiB)", Headline::memory);
        row(rows, summaries, "Overload episodes (gateway shed load)", Headline::overload);
        return rows;
    }

    private interface Cell {
        String of(Map<String, Object> summary);
    }

    private static void row(List<Row> rows, List<Map<String, Object>> summaries, String label, Cell cell) {
        List<String> values = new ArrayList<>();
        summaries.forEach(s -> values.add(cell.of(s)));
        rows.add(new Row(label, values));
    }

    private static String verdict(Map<String, Object> s) {
        Object problems = s.get("problems");
        if (problems instanceof List<?> l && !l.isEmpty()) {
            return "not met: " + String.join("; ", l.stream().map(String::valueOf).toList());
        }
        return Boolean.TRUE.equals(s.get("ok")) ? "met" : "not met";
    }

    private static Map<String, Object> ackLatency(Map<String, Object> s) {
        Map<String, Object> publish = map(s, "publish");
        return publish.isEmpty() ? map(map(s, "hold"), "ackLatencyMs") : map(publish, "ackLatencyMs");
    }

    /** Failed attempts, refusals and server DISCONNECTs of every phase, summed by reason. */
    static String failures(Map<String, Object> s) {
        Map<String, Long> total = new TreeMap<>();
        for (Map<String, Object> phase : List.of(map(map(s, "ramp"), "failures"), map(map(s, "hold"), "failures"),
                map(map(s, "publish"), "failures"), map(map(s, "storm"), "failedAttempts"))) {
            phase.forEach((k, v) -> total.merge(k, (long) num(v), Long::sum));
        }
        if (total.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        total.forEach((k, v) -> parts.add(k + " " + v));
        return String.join(", ", parts);
    }

    private static String cpuPerHandshake(Map<String, Object> s) {
        double before = gatewayCpu(s, "before");
        double after = gatewayCpu(s, "after-ramp");
        double connected = num(map(s, "ramp").get("connected"));
        String ramp = connected > 0 ? fixed((after - before) / connected * 1e3, 2) + " (ramp)" : "n/a (no ramp)";
        double storm = num(map(s, "storm").get("gatewayCpuMillisPerHandshake"));
        String text = Double.isNaN(storm) ? ramp : ramp + ", " + fixed(storm, 2) + " (storm)";
        double reconnect = num(map(s, "storm").get("gatewayCpuMillisPerReconnect"));
        if (!Double.isNaN(reconnect)) {
            text += ", " + fixed(reconnect, 3) + " (reconnect" + split(map(map(s, "storm"),
                    "gatewayCpuSplitMillisPerReconnect")) + ")";
        }
        return text;
    }

    /** ": user 0.190, system 0.047, JIT 0.004, GC 0.014" from a CPU split, or nothing when there is none. */
    private static String split(Map<String, Object> split) {
        if (split.isEmpty()) {
            return "";
        }
        return ": user " + fixed(num(split.get("user")), 3) + ", system " + fixed(num(split.get("system")), 3)
                + ", JIT " + fixed(num(split.get("jit")), 3) + ", GC " + fixed(num(split.get("gc")), 3);
    }

    /** The client's own CPU: on a machine shared with the server it competes for the same cores. */
    private static String clientCpuPerConnect(Map<String, Object> s) {
        double ramp = num(map(s, "ramp").get("clientCpuMillisPerConnect"));
        double storm = num(map(s, "storm").get("clientCpuMillisPerReconnect"));
        String text = Double.isNaN(ramp) ? "n/a" : fixed(ramp, 2) + " (ramp)";
        return Double.isNaN(storm) ? text : text + ", " + fixed(storm, 2) + " (reconnect)";
    }

    private static String cpuPerMessage(Map<String, Object> s) {
        double v = num(map(s, "publish").get("gatewayCpuMicrosPerMessage"));
        if (Double.isNaN(v)) {
            v = num(map(s, "hold").get("gatewayCpuMicrosPerMessage"));
        }
        return fixed(v, 1);
    }

    private static String memory(Map<String, Object> s) {
        Map<String, Object> m = map(s, "memoryPerConnection");
        double n = num(m.get("connections"));
        if (m.isEmpty() || !(n > 0)) {
            return "n/a";
        }
        String v = fixed(num(m.get("rssBytes")) / 1024, 1) + " / " + fixed(num(m.get("heapAfterGcBytes")) / 1024, 1)
                + " / " + fixed(num(m.get("directBufferBytes")) / 1024, 1) + " (over " + whole(n) + " connections)";
        if (n < MIN_CONNECTIONS_FOR_MEMORY) {
            v += "; caveat: fewer than " + String.format(Locale.ROOT, "%,d", MIN_CONNECTIONS_FOR_MEMORY)
                    + " connections measured, the figure is mostly fixed costs and noise";
        }
        return v;
    }

    private static String overload(Map<String, Object> s) {
        Map<String, Object> o = map(s, "overload");
        if (o.isEmpty() || Boolean.FALSE.equals(o.get("watched"))) {
            return "not watched (no --admin endpoint)";
        }
        Object episodes = o.get("episodes");
        if (!(episodes instanceof List<?> l) || l.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        for (Object e : l) {
            if (e instanceof Map<?, ?> m) {
                String part = m.get("kind") + " " + fixed(num(m.get("fromSeconds")), 0) + "-"
                        + fixed(num(m.get("toSeconds")), 0) + " s";
                if (m.get("count") != null) {
                    part += " (" + whole(num(m.get("count"))) + ")";
                }
                parts.add(part);
            }
        }
        return String.join("; ", parts);
    }

    private static double gatewayCpu(Map<String, Object> s, String label) {
        if (s.get("gateway") instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> m && label.equals(m.get("label"))) {
                    return num(m.get("cpuSeconds"));
                }
            }
        }
        return Double.NaN;
    }

    private static String percentiles(Map<String, Object> p) {
        if (p.isEmpty() || num(p.get("count")) == 0) {
            return "n/a";
        }
        return fixed(num(p.get("p50")), 2) + " / " + fixed(num(p.get("p99")), 2) + " / " + fixed(num(p.get("p999")), 2);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        return v instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    static double num(Object v) {
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static String str(Object v) {
        return v == null ? "n/a" : String.valueOf(v);
    }

    private static String whole(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }
}
