package io.mqttgw.bench.sim.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Episodes of the gateway shedding load during a run, from its /metrics read every {@link #EVERY_SECONDS} s:
 * overloaded ({@code mqttgw_overload_level} 1: listening ports closed and/or CONNECTs refused, by the node's
 * {@code overload.*} reactions) and connection attempts rejected by admission ({@code mqttgw_admission_rejected_total}
 * rising). Each episode has its start and end in run seconds (to the sampling interval). Coordinator thread only.
 */
final class OverloadWatch {
    static final double EVERY_SECONDS = 2;
    static final String OVERLOADED = "overloaded (listeners closed, CONNECTs refused)";
    static final String REJECTED = "connections rejected by admission";

    private final List<Map<String, Object>> episodes = new ArrayList<>();
    private double nextAt;
    private double lastT = Double.NaN;
    private double lastRejected = Double.NaN;
    private Map<String, Object> overloaded;
    private Map<String, Object> rejecting;

    /** True when a sample is due at run second {@code t}. */
    boolean due(double t) {
        return t >= nextAt;
    }

    /** One reading at run second {@code t}: the overload level (NaN if absent) and the cumulative rejections. */
    void observe(double t, double level, double rejectedTotal) {
        nextAt = t + EVERY_SECONDS;
        if (level > 0 && overloaded == null) {
            overloaded = open(OVERLOADED, Double.isNaN(lastT) ? t : lastT);
        } else if (!(level > 0) && overloaded != null) {
            close(overloaded, t);
            overloaded = null;
        }
        double rejectedNow = Double.isNaN(rejectedTotal) ? 0 : rejectedTotal;
        double delta = Double.isNaN(lastRejected) ? 0 : rejectedNow - lastRejected;
        if (delta > 0) {
            if (rejecting == null) {
                rejecting = open(REJECTED, lastT);
                rejecting.put("count", 0L);
            }
            rejecting.put("count", (Long) rejecting.get("count") + Math.round(delta));
        } else if (rejecting != null) {
            close(rejecting, lastT);
            rejecting = null;
        }
        lastRejected = rejectedNow;
        lastT = t;
    }

    /** The episodes so far; one still open ends at {@code t}. */
    List<Map<String, Object>> finish(double t) {
        if (overloaded != null) {
            close(overloaded, t);
            overloaded = null;
        }
        if (rejecting != null) {
            close(rejecting, t);
            rejecting = null;
        }
        return List.copyOf(episodes);
    }

    private Map<String, Object> open(String kind, double from) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("kind", kind);
        e.put("fromSeconds", from);
        e.put("toSeconds", Double.NaN);
        episodes.add(e);
        return e;
    }

    private static void close(Map<String, Object> e, double to) {
        e.put("toSeconds", to);
    }
}
