package io.mqttgw.bench.sim.scenario;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gateway's own figures at one moment, from its /metrics and (when its pid is known) /proc: NaN where a figure
 * was not available. {@code cpuSeconds} is user + system CPU time of the gateway process less
 * {@code forcedGcCpuSeconds}, the CPU of the full GCs the bench asked for so far (to read live heap). Immutable.
 */
public record GatewaySnapshot(String label, double t, double connectionsOpen, double channelsOpen, double rssBytes,
                              double heapUsedBytes, double directBufferBytes, double nettyDirectBytes,
                              double cpuSeconds, double handshakesNew, double handshakesResumed,
                              double publishIn, double disconnects, double gcRun, double forcedGcCpuSeconds) {

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("label", label);
        m.put("t", t);
        m.put("connectionsOpen", connectionsOpen);
        m.put("channelsOpen", channelsOpen);
        m.put("rssBytes", rssBytes);
        m.put("heapUsedBytes", heapUsedBytes);
        m.put("directBufferBytes", directBufferBytes);
        m.put("nettyDirectBytes", nettyDirectBytes);
        m.put("cpuSeconds", cpuSeconds);
        m.put("handshakesNew", handshakesNew);
        m.put("handshakesResumed", handshakesResumed);
        m.put("publishIn", publishIn);
        m.put("disconnects", disconnects);
        m.put("gcBeforeRead", gcRun > 0);
        m.put("forcedGcCpuSeconds", forcedGcCpuSeconds);
        return m;
    }
}
