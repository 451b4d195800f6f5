package io.mqttgw.bench.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart rendered as inline SVG: shared x axis (seconds), one or more named series, axis labels at round
 * values, vertical phase marks. NaN points break a line. Built by one thread, then rendered.
 */
final class SvgChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 900;
    private static final int H = 260;
    private static final int L = 70;
    private static final int R = 160;
    private static final int T = 30;
    private static final int B = 35;

    private record Series(String name, double[] y) {
    }

    private final String title;
    private final String unit;
    private final double[] x;
    private final List<Series> series = new ArrayList<>();
    private final List<double[]> markTimes = new ArrayList<>();
    private final List<String> markNames = new ArrayList<>();

    SvgChart(String title, String unit, double[] x) {
        this.title = title;
        this.unit = unit;
        this.x = x;
    }

    SvgChart series(String name, double[] y) {
        series.add(new Series(name, y));
        return this;
    }

    SvgChart mark(double t, String name) {
        markTimes.add(new double[] {t});
        markNames.add(name);
        return this;
    }

    String render() {
        double xMax = x.length == 0 ? 1 : Math.max(1, x[x.length - 1]);
        double yMax = 0;
        for (Series s : series) {
            for (double v : s.y()) {
                if (!Double.isNaN(v)) {
                    yMax = Math.max(yMax, v);
                }
            }
        }
        yMax = nice(yMax <= 0 ? 1 : yMax * 1.05);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
                + "viewBox='0 0 %d %d' font-family='sans-serif' font-size='11'>", W, H, W, H));
        sb.append(String.format(Locale.ROOT, "<text x='%d' y='18' font-size='14' font-weight='bold'>%s</text>", L,
                esc(title)));
        int pw = W - L - R;
        int ph = H - T - B;
        sb.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#999'/>",
                L, T, pw, ph));
        for (int i = 0; i <= 4; i++) {
            double v = yMax * i / 4;
            double py = T + ph - ph * i / 4.0;
            sb.append(String.format(Locale.ROOT, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#eee'/>", L,
                    L + pw, py, py));
            sb.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' text-anchor='end'>%s</text>", L - 5, py + 4,
                    label(v)));
            double xv = xMax * i / 4;
            double px = L + pw * i / 4.0;
            sb.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' text-anchor='middle'>%ss</text>", px,
                    T + ph + 15, label(xv)));
        }
        sb.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='start' fill='#555'>%s</text>", 5,
                T - 8, esc(unit)));
        for (int m = 0; m < markTimes.size(); m++) {
            double px = L + pw * markTimes.get(m)[0] / xMax;
            sb.append(String.format(Locale.ROOT, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#aaa' "
                    + "stroke-dasharray='3,3'/><text x='%.1f' y='%d' fill='#777'>%s</text>", px, px, T, T + ph,
                    px + 2, T + 10, esc(markNames.get(m))));
        }
        for (int s = 0; s < series.size(); s++) {
            String color = COLORS[s % COLORS.length];
            double[] y = series.get(s).y();
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            for (int i = 0; i < Math.min(x.length, y.length); i++) {
                if (Double.isNaN(y[i])) {
                    pen = false;
                    continue;
                }
                double px = L + pw * x[i] / xMax;
                double py = T + ph - ph * Math.min(y[i], yMax) / yMax;
                path.append(pen ? " L" : " M").append(String.format(Locale.ROOT, "%.1f %.1f", px, py));
                pen = true;
            }
            if (path.length() > 0) {
                sb.append("<path fill='none' stroke='").append(color).append("' stroke-width='1.5' d='")
                        .append(path).append("'/>");
            }
            sb.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='10' height='10' fill='%s'/>"
                    + "<text x='%d' y='%d'>%s</text>", W - R + 10, T + 14 * s, color, W - R + 25, T + 9 + 14 * s,
                    esc(series.get(s).name())));
        }
        return sb.append("</svg>").toString();
    }

    static double nice(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    static String label(double v) {
        if (v >= 1e9) {
            return String.format(Locale.ROOT, "%.1fG", v / 1e9);
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        if (v >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
