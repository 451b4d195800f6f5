package io.mqttgw.bench.sim.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart rendered as inline SVG: shared x axis (seconds), named series on a left axis and, for series of another
 * kind (a cumulative count next to per-second rates), on a right axis of their own; ticks at round values (1, 2, 2.5
 * or 5 times a power of ten); vertical phase marks; the legend below the plot, wrapped into as many rows as it needs
 * so no name is ever cut. NaN points break a line. Built by one thread, then rendered.
 */
final class SvgChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 900;
    private static final int PLOT_H = 190;
    private static final int L = 70;
    private static final int R = 70;
    private static final int T = 30;
    private static final int X_LABELS = 35;
    private static final int LEGEND_ROW = 16;
    /** Width of one character of the 11 px sans-serif legend, rounded up so an estimate is never short. */
    private static final double CHAR_W = 7.0;

    private record Series(String name, double[] y, boolean right) {
    }

    /** Ticks 0, step, 2 step, ... top, with step a round number and top the first tick at or above the maximum. */
    record Ticks(double step, double top) {
        static Ticks of(double max) {
            double m = max > 0 && !Double.isInfinite(max) ? max : 1;
            double step = roundStep(m / 4);
            double top = Math.ceil(m / step - 1e-9) * step;
            return new Ticks(step, Math.max(step, top));
        }

        int count() {
            return (int) Math.round(top / step);
        }
    }

    private final String title;
    private final String unit;
    private final double[] x;
    private final List<Series> series = new ArrayList<>();
    private final List<Double> markTimes = new ArrayList<>();
    private final List<String> markNames = new ArrayList<>();
    private String rightUnit;

    SvgChart(String title, String unit, double[] x) {
        this.title = title;
        this.unit = unit;
        this.x = x;
    }

    SvgChart series(String name, double[] y) {
        series.add(new Series(name, y, false));
        return this;
    }

    /** A series on the right axis, labelled {@code unit}: a different kind of value than the left axis's. */
    SvgChart rightSeries(String name, String unit, double[] y) {
        series.add(new Series(name, y, true));
        rightUnit = unit;
        return this;
    }

    SvgChart mark(double t, String name) {
        markTimes.add(t);
        markNames.add(name);
        return this;
    }

    String render() {
        Ticks xt = Ticks.of(x.length == 0 ? 1 : x[x.length - 1]);
        Ticks left = Ticks.of(max(false));
        Ticks right = Ticks.of(max(true));
        List<int[]> legend = legendLayout();
        int rows = legend.isEmpty() ? 0 : legend.get(legend.size() - 1)[1] + 1;
        int width = W;
        for (int[] item : legend) {
            width = Math.max(width, item[0] + item[2] + 10);
        }
        int height = T + PLOT_H + X_LABELS + rows * LEGEND_ROW + 5;
        int pw = W - L - R;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
                + "viewBox='0 0 %d %d' font-family='sans-serif' font-size='11'>", width, height, width, height));
        sb.append(String.format(Locale.ROOT, "<text x='%d' y='18' font-size='14' font-weight='bold'>%s</text>", L,
                esc(title)));
        sb.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#999'/>",
                L, T, pw, PLOT_H));
        sb.append("<g class='y-ticks'>");
        for (int i = 0; i <= left.count(); i++) {
            double py = T + PLOT_H - PLOT_H * i / (double) left.count();
            sb.append(String.format(Locale.ROOT, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#eee'/>", L,
                    L + pw, py, py));
            sb.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' text-anchor='end'>%s</text>", L - 5, py + 4,
                    label(left.step() * i)));
        }
        sb.append("</g>");
        if (rightUnit != null) {
            sb.append("<g class='y2-ticks'>");
            for (int i = 0; i <= right.count(); i++) {
                double py = T + PLOT_H - PLOT_H * i / (double) right.count();
                sb.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' text-anchor='start' fill='#555'>%s</text>",
                        L + pw + 5, py + 4, label(right.step() * i)));
            }
            sb.append("</g>");
            sb.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='end' fill='#555'>%s</text>",
                    width - 5, T - 8, esc(rightUnit)));
        }
        sb.append("<g class='x-ticks'>");
        for (int i = 0; i <= xt.count(); i++) {
            double px = L + pw * i / (double) xt.count();
            sb.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' text-anchor='middle'>%s</text>", px,
                    T + PLOT_H + 15, label(xt.step() * i) + "s"));
        }
        sb.append("</g>");
        sb.append(String.format(Locale.ROOT, "<text x='%d' y='%d' text-anchor='start' fill='#555'>%s</text>", 5,
                T - 8, esc(unit)));
        for (int m = 0; m < markTimes.size(); m++) {
            double px = L + pw * markTimes.get(m) / xt.top();
            sb.append(String.format(Locale.ROOT, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#aaa' "
                    + "stroke-dasharray='3,3'/><text x='%.1f' y='%d' fill='#777'>%s</text>", px, px, T, T + PLOT_H,
                    px + 2, T + 10, esc(markNames.get(m))));
        }
        StringBuilder legendSvg = new StringBuilder("<g class='legend'>");
        sb.append("<g class='lines'>");
        for (int s = 0; s < series.size(); s++) {
            String color = COLORS[s % COLORS.length];
            Series line = series.get(s);
            double yTop = line.right() ? right.top() : left.top();
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            for (int i = 0; i < Math.min(x.length, line.y().length); i++) {
                if (Double.isNaN(line.y()[i])) {
                    pen = false;
                    continue;
                }
                double px = L + pw * x[i] / xt.top();
                double py = T + PLOT_H - PLOT_H * Math.min(line.y()[i], yTop) / yTop;
                path.append(pen ? " L" : " M").append(String.format(Locale.ROOT, "%.1f %.1f", px, py));
                pen = true;
            }
            if (path.length() > 0) {
                sb.append("<path fill='none' stroke='").append(color).append("' stroke-width='1.5'")
                        .append(line.right() ? " stroke-dasharray='6,3'" : "").append(" d='").append(path)
                        .append("'/>");
            }
            int[] at = legend.get(s);
            int ly = T + PLOT_H + X_LABELS + at[1] * LEGEND_ROW;
            legendSvg.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='10' height='10' fill='%s'/>"
                    + "<text x='%d' y='%d'>%s</text>", at[0], ly, color, at[0] + 15, ly + 9, esc(legendName(line))));
        }
        sb.append("</g>").append(legendSvg).append("</g>");
        return sb.append("</svg>").toString();
    }

    private String legendName(Series s) {
        return s.right() ? s.name() + " (right axis)" : s.name();
    }

    /** Per series: x, row and text width of its legend entry, filling rows left to right within the chart width. */
    private List<int[]> legendLayout() {
        List<int[]> out = new ArrayList<>();
        int x0 = L;
        int row = 0;
        for (Series s : series) {
            int w = 15 + (int) Math.ceil(legendName(s).length() * CHAR_W);
            if (x0 > L && x0 + w > W - 10) {
                row++;
                x0 = L;
            }
            out.add(new int[] {x0, row, w});
            x0 += w + 20;
        }
        return out;
    }

    private double max(boolean right) {
        double m = 0;
        for (Series s : series) {
            if (s.right() == right) {
                for (double v : s.y()) {
                    if (!Double.isNaN(v)) {
                        m = Math.max(m, v);
                    }
                }
            }
        }
        return m;
    }

    /** The round number (1, 2, 2.5 or 5 times a power of ten) at or above {@code v}. */
    static double roundStep(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v * (1 - 1e-9)) {
                return m * p;
            }
        }
        return 10 * p;
    }

    /** A tick label: the value exactly, shortened with k, M or G and never rounded away from the tick. */
    static String label(double v) {
        String suffix = "";
        double scaled = v;
        if (Math.abs(v) >= 1e9) {
            scaled = v / 1e9;
            suffix = "G";
        } else if (Math.abs(v) >= 1e6) {
            scaled = v / 1e6;
            suffix = "M";
        } else if (Math.abs(v) >= 1e4) {
            scaled = v / 1e3;
            suffix = "k";
        }
        BigDecimal d = new BigDecimal(String.format(Locale.ROOT, "%.6f", scaled)).stripTrailingZeros();
        return (d.scale() < 0 ? d.setScale(0) : d).toPlainString() + suffix;
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
                .replace("\"", "&quot;");
    }
}
