package io.mqttgw.bench.sim.worker;

import io.mqttgw.bench.sim.device.FleetStats;
import io.mqttgw.bench.sim.json.Json;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * One worker's stats line: gauges, cumulative counters (so a lost line loses nothing) and the latency histograms
 * of the last interval, HdrHistogram-compressed and base64-encoded so the coordinator can merge them exactly.
 * Immutable apart from the histograms, which belong to whoever holds the report.
 */
public record WorkerReport(int worker, long timeMillis, int devices, int connected, int connecting,
                           long handshakesFull, long handshakesResumed, long connacks, Map<String, Long> failures,
                           long published, long publishedQos1, long acked, long pings, long dropped,
                           long unexpectedDisconnects, long subscribed, long rssBytes, Histogram ackLatency,
                           Histogram connectLatency) {
    private static final java.nio.file.Path STATM = java.nio.file.Path.of("/proc/self/statm");

    public static WorkerReport of(int worker, int devices, FleetStats.Snapshot s) {
        return new WorkerReport(worker, System.currentTimeMillis(), devices, s.connected(), s.connecting(),
                s.handshakesFull(), s.handshakesResumed(), s.connacks(), s.failures(), s.published(),
                s.publishedQos1(), s.acked(), s.pings(), s.dropped(), s.unexpectedDisconnects(), s.subscribed(),
                residentBytes(), s.ackLatency(), s.connectLatency());
    }

    /** This process's resident set size from /proc/self/statm (4 KiB pages), or -1 where there is none. */
    static long residentBytes() {
        try {
            return Long.parseLong(java.nio.file.Files.readString(STATM).trim().split(" ")[1]) * 4096;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "stats");
        m.put("worker", worker);
        m.put("t", timeMillis);
        m.put("devices", devices);
        m.put("connected", connected);
        m.put("connecting", connecting);
        m.put("handshakesFull", handshakesFull);
        m.put("handshakesResumed", handshakesResumed);
        m.put("connacks", connacks);
        m.put("failures", failures);
        m.put("published", published);
        m.put("publishedQos1", publishedQos1);
        m.put("acked", acked);
        m.put("pings", pings);
        m.put("dropped", dropped);
        m.put("unexpectedDisconnects", unexpectedDisconnects);
        m.put("subscribed", subscribed);
        m.put("rssBytes", rssBytes);
        m.put("ackLatency", encode(ackLatency));
        m.put("connectLatency", encode(connectLatency));
        return Json.write(m);
    }

    @SuppressWarnings("unchecked")
    public static WorkerReport fromJson(Map<String, Object> m) {
        Map<String, Long> failures = new TreeMap<>();
        ((Map<String, Object>) m.getOrDefault("failures", Map.of())).forEach((k, v) -> failures.put(k, num(v)));
        return new WorkerReport((int) num(m.get("worker")), num(m.get("t")), (int) num(m.get("devices")),
                (int) num(m.get("connected")), (int) num(m.get("connecting")), num(m.get("handshakesFull")),
                num(m.get("handshakesResumed")), num(m.get("connacks")), failures, num(m.get("published")),
                num(m.get("publishedQos1")), num(m.get("acked")), num(m.get("pings")), num(m.get("dropped")),
                num(m.get("unexpectedDisconnects")), num(m.get("subscribed")), num(m.get("rssBytes")),
                decode((String) m.get("ackLatency")),
                decode((String) m.get("connectLatency")));
    }

    private static long num(Object o) {
        return o == null ? 0 : ((Number) o).longValue();
    }

    static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }

    static Histogram decode(String s) {
        if (s == null || s.isEmpty()) {
            return new Histogram(3);
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(s)), 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("bad histogram in worker report", e);
        }
    }
}
