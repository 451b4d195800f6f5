package io.mqttgw.bench.sim.scenario;

import java.util.ArrayList;
import java.util.List;

/**
 * Parsed Prometheus text exposition: {@code name{labels} value} lines, comments skipped. {@link #sum} adds every
 * series of a name whose label text contains all the given {@code key="value"} pairs. Immutable.
 */
public final class PrometheusText {
    private record Line(String name, String labels, double value) {
    }

    private final List<Line> lines;

    private PrometheusText(List<Line> lines) {
        this.lines = lines;
    }

    public static PrometheusText parse(String text) {
        List<Line> out = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space;
            String name;
            String labels = "";
            if (brace >= 0 && brace < line.indexOf(' ')) {
                int close = line.lastIndexOf('}');
                if (close < brace) {
                    continue;
                }
                name = line.substring(0, brace);
                labels = line.substring(brace + 1, close);
                space = close + 1;
            } else {
                space = line.indexOf(' ');
                if (space < 0) {
                    continue;
                }
                name = line.substring(0, space);
            }
            String[] rest = line.substring(space).trim().split("\\s+");
            try {
                out.add(new Line(name, labels, Double.parseDouble(rest[0])));
            } catch (NumberFormatException e) {
                // a value we cannot read (none expected from micrometer) is skipped
            }
        }
        return new PrometheusText(out);
    }

    /** Sum of the matching series, or NaN when there is none. */
    public double sum(String name, String... labelPairs) {
        double total = 0;
        boolean found = false;
        for (Line l : lines) {
            if (!l.name().equals(name)) {
                continue;
            }
            boolean match = true;
            for (String pair : labelPairs) {
                if (!l.labels().contains(pair)) {
                    match = false;
                    break;
                }
            }
            if (match) {
                total += l.value();
                found = true;
            }
        }
        return found ? total : Double.NaN;
    }
}
