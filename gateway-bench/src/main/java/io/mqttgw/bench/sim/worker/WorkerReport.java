package io.mqttgw.bench.sim.worker;

import io.mqttgw.bench.sim.device.FleetStats;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One worker's stats line: gauges, cumulative counters (so a lost line loses nothing) and the latency histograms
 * of the last interval, sent as {@link WorkerLines} (histograms HdrHistogram-compressed, base64) so the
 * coordinator merges them exactly.
 * {@code fleet} holds the balancer's per-node counters and the devices' returns ({@code DeviceFleet#fleetCounters}).
 * Immutable apart from the histograms, which belong to whoever holds the report.
 */
public record WorkerReport(int worker, long timeMillis, int devices, int connected, int connecting,
                           long handshakesFull, long handshakesResumed, long connacks, long lastConnackMillis,
                           long startsMissed,
                           Map<String, Long> failures,
                           long published, long publishedQos1, long acked, long pings, long dropped,
                           long unexpectedDisconnects, long subscribed, long rssBytes, Histogram ackLatency,
                           Histogram connectLatency, Map<String, Long> fleet, Histogram pingLatency) {
    private static final java.nio.file.Path STATM = java.nio.file.Path.of("/proc/self/statm");

    /** A report without fleet counters (one gateway, or a test). */
    public WorkerReport(int worker, long timeMillis, int devices, int connected, int connecting, long handshakesFull,
                        long handshakesResumed, long connacks, long lastConnackMillis, long startsMissed,
                        Map<String, Long> failures, long published, long publishedQos1, long acked, long pings,
                        long dropped, long unexpectedDisconnects, long subscribed, long rssBytes,
                        Histogram ackLatency, Histogram connectLatency) {
        this(worker, timeMillis, devices, connected, connecting, handshakesFull, handshakesResumed, connacks,
                lastConnackMillis, startsMissed, failures, published, publishedQos1, acked, pings, dropped,
                unexpectedDisconnects, subscribed, rssBytes, ackLatency, connectLatency, Map.of(), new Histogram(3));
    }

    public static WorkerReport of(int worker, int devices, FleetStats.Snapshot s, Map<String, Long> fleet,
                                  Histogram pingLatency) {
        return new WorkerReport(worker, System.currentTimeMillis(), devices, s.connected(), s.connecting(),
                s.handshakesFull(), s.handshakesResumed(), s.connacks(), s.lastConnackMillis(), s.startsMissed(),
                s.failures(),
                s.published(), s.publishedQos1(), s.acked(), s.pings(), s.dropped(), s.unexpectedDisconnects(),
                s.subscribed(), residentBytes(), s.ackLatency(), s.connectLatency(), fleet, pingLatency);
    }

    /** This process's resident set size from /proc/self/statm (4 KiB pages), or -1 where there is none. */
    static long residentBytes() {
        try {
            return Long.parseLong(java.nio.file.Files.readString(STATM).trim().split(" ")[1]) * 4096;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }
}
