package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.worker.WorkerReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Sums the latest report of every worker and turns consecutive sums into one {@link Sample} a second. Latency
 * histograms are merged exactly; a phase histogram accumulates the whole current phase for the summary. Reports
 * arrive on worker reader threads, {@link #tick} runs on the coordinator thread: all methods are synchronized.
 */
final class Timeline {
    private final long startNanos = System.nanoTime();
    private final Map<Integer, WorkerReport> latest = new HashMap<>();
    private final Map<Integer, Rates> rates = new HashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private final List<String[]> marks = new ArrayList<>();
    private Histogram tickAck = new Histogram(3);
    private Histogram tickConnect = new Histogram(3);
    private Histogram phaseAck = new Histogram(3);
    private Histogram phaseConnect = new Histogram(3);
    private Histogram phasePing = new Histogram(3);
    private String phase = "start";

    synchronized void accept(WorkerReport r) {
        WorkerReport before = latest.put(r.worker(), r);
        rates.put(r.worker(), Rates.between(before, r));
        tickAck.add(r.ackLatency());
        tickConnect.add(r.connectLatency());
        phaseAck.add(r.ackLatency());
        phaseConnect.add(r.connectLatency());
        phasePing.add(r.pingLatency());
    }

    synchronized double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Starts a phase: marks the timeline and resets the phase histograms. */
    synchronized void phase(String name) {
        continuePhase(name);
        phaseAck = new Histogram(3);
        phaseConnect = new Histogram(3);
        phasePing = new Histogram(3);
    }

    /** Marks a new phase name that still counts towards the current phase histograms (e.g. draining acks). */
    synchronized void continuePhase(String name) {
        phase = name;
        marks.add(new String[] {String.format(Locale.ROOT, "%.1f", seconds()), name});
    }

    synchronized Totals totals() {
        return Totals.sum(latest.values());
    }

    /**
     * One sample: gauges from the latest reports, rates as the sum of each worker's rate between its own last two
     * reports (so a report arriving just after a tick shows no false zero followed by a double).
     */
    synchronized Sample tick() {
        Totals t = Totals.sum(latest.values());
        Rates r = Rates.ZERO;
        for (Rates x : rates.values()) {
            r = r.plus(x);
        }
        Sample s = new Sample(seconds(), phase, t.connected(), t.connecting(), r.handshakesFull(),
                r.handshakesResumed(), r.connacks(), r.failures(), r.published(), r.acked(),
                millis(tickAck, 50), millis(tickAck, 99), millis(tickAck, 99.9), millis(tickConnect, 50),
                millis(tickConnect, 99), t.dropped(), t.unexpectedDisconnects(), nodeConnected(fleet(latest.values())));
        samples.add(s);
        tickAck = new Histogram(3);
        tickConnect = new Histogram(3);
        return s;
    }

    /** Per-second rates of one worker between two consecutive reports. */
    record Rates(double handshakesFull, double handshakesResumed, double connacks, Map<String, Long> failures,
                 double published, double acked) {
        static final Rates ZERO = new Rates(0, 0, 0, Map.of(), 0, 0);

        static Rates between(WorkerReport a, WorkerReport b) {
            if (a == null) {
                return ZERO;
            }
            double dt = Math.max(1e-3, (b.timeMillis() - a.timeMillis()) / 1000.0);
            Map<String, Long> failures = new TreeMap<>();
            b.failures().forEach((k, v) -> {
                long d = v - a.failures().getOrDefault(k, 0L);
                if (d > 0) {
                    failures.put(k, Math.round(d / dt));
                }
            });
            return new Rates((b.handshakesFull() - a.handshakesFull()) / dt,
                    (b.handshakesResumed() - a.handshakesResumed()) / dt, (b.connacks() - a.connacks()) / dt,
                    failures, (b.published() - a.published()) / dt, (b.acked() - a.acked()) / dt);
        }

        Rates plus(Rates o) {
            Map<String, Long> f = new TreeMap<>(failures);
            o.failures().forEach((k, v) -> f.merge(k, v, Long::sum));
            return new Rates(handshakesFull + o.handshakesFull, handshakesResumed + o.handshakesResumed,
                    connacks + o.connacks, f, published + o.published, acked + o.acked);
        }
    }

    static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    synchronized Histogram phaseAckLatency() {
        return phaseAck.copy();
    }

    synchronized Histogram phasePingLatency() {
        return phasePing.copy();
    }

    /** The workers' fleet counters, summed (maxima for keys starting {@code max.}). */
    synchronized Map<String, Long> fleetTotals() {
        return fleet(latest.values());
    }

    static Map<String, Long> fleet(Iterable<WorkerReport> reports) {
        Map<String, Long> m = new TreeMap<>();
        for (WorkerReport r : reports) {
            r.fleet().forEach((k, v) -> m.merge(k, v, k.startsWith("max.") ? Math::max : Long::sum));
        }
        return m;
    }

    /** Connected devices per node, in node order, from summed fleet counters; empty without several nodes. */
    static List<Integer> nodeConnected(Map<String, Long> fleet) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; fleet.containsKey("node." + i + ".connected"); i++) {
            out.add(fleet.get("node." + i + ".connected").intValue());
        }
        return out.size() > 1 ? out : List.of();
    }

    synchronized Histogram phaseConnectLatency() {
        return phaseConnect.copy();
    }

    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    synchronized List<String[]> marks() {
        return List.copyOf(marks);
    }

    /** Cumulative counters summed over workers. */
    record Totals(int devices, int connected, int connecting, long handshakesFull, long handshakesResumed,
                  long connacks, long lastConnackMillis, long startsMissed, Map<String, Long> failures, long published,
                  long publishedQos1, long acked, long pings, long dropped, long unexpectedDisconnects,
                  long subscribed, long clientRssBytes) {
        static final Totals ZERO = new Totals(0, 0, 0, 0, 0, 0, 0, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0);

        static Totals sum(Iterable<WorkerReport> reports) {
            int devices = 0;
            int connected = 0;
            int connecting = 0;
            long full = 0;
            long resumed = 0;
            long connacks = 0;
            long lastConnack = 0;
            long startsMissed = 0;
            long published = 0;
            long qos1 = 0;
            long acked = 0;
            long pings = 0;
            long dropped = 0;
            long unexpected = 0;
            long subscribed = 0;
            long rss = 0;
            Map<String, Long> failures = new TreeMap<>();
            for (WorkerReport r : reports) {
                devices += r.devices();
                connected += r.connected();
                connecting += r.connecting();
                full += r.handshakesFull();
                resumed += r.handshakesResumed();
                connacks += r.connacks();
                lastConnack = Math.max(lastConnack, r.lastConnackMillis());
                startsMissed += r.startsMissed();
                published += r.published();
                qos1 += r.publishedQos1();
                acked += r.acked();
                pings += r.pings();
                dropped += r.dropped();
                unexpected += r.unexpectedDisconnects();
                subscribed += r.subscribed();
                rss += Math.max(0, r.rssBytes());
                r.failures().forEach((k, v) -> failures.merge(k, v, Long::sum));
            }
            return new Totals(devices, connected, connecting, full, resumed, connacks, lastConnack, startsMissed,
                    failures, published, qos1, acked, pings, dropped, unexpected, subscribed, rss);
        }

        long failureCount() {
            return failures.entrySet().stream()
                    .filter(e -> !e.getKey().equals(io.mqttgw.bench.sim.device.FailureReasons.DEVICE_FAILED_AGAIN))
                    .mapToLong(Map.Entry::getValue).sum();
        }
    }
}
