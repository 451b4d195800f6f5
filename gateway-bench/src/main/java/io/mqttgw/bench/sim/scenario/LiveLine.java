package io.mqttgw.bench.sim.scenario;

import java.util.Locale;

/** Formats the once-a-second progress line. Stateless. */
final class LiveLine {
    private LiveLine() {
    }

    static String format(Sample s, int devices) {
        return String.format(Locale.ROOT,
                "[%6.1fs] %-7s connected %d/%d connecting %d | tls/s %.0f full + %.0f resumed | fail/s %d %s"
                        + " | pub/s %.0f ack/s %.0f | ack p50 %s p99 %s ms | dropped %d lost %d",
                s.t(), s.phase(), s.connected(), devices, s.connecting(), s.handshakesFull(), s.handshakesResumed(),
                s.failureCount(), s.failures().isEmpty() ? "" : s.failures().toString(), s.published(), s.acked(),
                ms(s.ackP50()), ms(s.ackP99()), s.dropped(), s.unexpectedDisconnects())
                + (s.nodeConnected().isEmpty() ? "" : " | nodes " + s.nodeConnected().stream().map(String::valueOf)
                        .collect(java.util.stream.Collectors.joining("/")));
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
