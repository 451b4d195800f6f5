package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.config.GatewayTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads the server from outside: is its MQTT port reachable, its /metrics, its CPU time and RSS from
 * {@code /proc/<pid>}, and, only when that process is a JVM, a full GC through {@code jcmd <pid> GC.run} before
 * memory is read (so heap is live data, not garbage). Any other server (Mosquitto, say) is never signalled: jcmd's
 * attach sends SIGQUIT, which ends a process that does not handle it. Every call has a timeout. Used from the
 * coordinator thread.
 */
final class GatewayObserver {

    private static final long PAGE_SIZE = 4096;

    private final GatewayTarget target;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private final boolean jvm;
    /** CPU the gateway spent in the full GCs (and jcmd attaches) of {@link #gc}, summed over this observer's life. */
    private double forcedGcCpuSeconds;

    GatewayObserver(GatewayTarget target) {
        this.target = target;
        this.jvm = target.hasPid() && isJvm(Path.of("/proc", Long.toString(target.pid())));
        if (target.hasPid() && !jvm) {
            System.err.println("note: process " + target.pid() + " is not a JVM: no jcmd, CPU and RSS from /proc");
        }
    }

    /**
     * Whether the process behind {@code procDir} runs a JVM: its executable is named java, or its command line's
     * first word is. Read from /proc only, so the check sends nothing to the process.
     */
    static boolean isJvm(Path procDir) {
        try {
            Path exe = Files.readSymbolicLink(procDir.resolve("exe"));
            if (exe.getFileName() != null && exe.getFileName().toString().equals("java")) {
                return true;
            }
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            // not readable (another user's process): fall back to the command line
        }
        try {
            String cmdline = Files.readString(procDir.resolve("cmdline"));
            int end = cmdline.indexOf('\0');
            String first = end < 0 ? cmdline : cmdline.substring(0, end);
            return Path.of(first.isEmpty() ? "-" : first).getFileName().toString().equals("java");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Resident set size of the process from {@code /proc/<pid>/statm}, or NaN. */
    double procRssBytes() {
        if (!target.hasPid()) {
            return Double.NaN;
        }
        try {
            String[] f = Files.readString(Path.of("/proc", Long.toString(target.pid()), "statm")).trim().split(" ");
            return Long.parseLong(f[1]) * (double) PAGE_SIZE;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Null when a TCP connection to the MQTT port succeeds, else why not. */
    String unreachable() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(target.host(), target.port()), 3000);
            return null;
        } catch (IOException e) {
            return "gateway " + target.host() + ":" + target.port() + " is unreachable (" + e.getMessage()
                    + "); start it first or fix --host/--port";
        }
    }

    /** Null when /metrics answers (or no admin endpoint was given), else why not. */
    String metricsUnavailable() {
        if (!target.hasMetrics()) {
            return null;
        }
        try {
            fetch();
            return null;
        } catch (IOException e) {
            return "gateway metrics " + target.metrics() + " unavailable (" + e.getMessage()
                    + "); fix --admin or pass --admin none";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private String fetch() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(target.metrics()).timeout(Duration.ofSeconds(10))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("HTTP " + r.statusCode());
        }
        return r.body();
    }

    /**
     * The overload level and cumulative admission rejections now, for {@link OverloadWatch}; NaNs when there is no
     * admin endpoint or it does not answer.
     */
    double[] overloadReading() {
        if (!target.hasMetrics()) {
            return new double[] {Double.NaN, Double.NaN};
        }
        try {
            PrometheusText m = PrometheusText.parse(fetch());
            return new double[] {m.sum("mqttgw_overload_level"), m.sum("mqttgw_admission_rejected_total")};
        } catch (IOException e) {
            return new double[] {Double.NaN, Double.NaN};
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new double[] {Double.NaN, Double.NaN};
        }
    }

    /** Runs a full GC in the gateway (when its pid is known and it is a JVM); true when jcmd succeeded. */
    boolean gc() {
        if (!jvm) {
            return false;
        }
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        try {
            Process p = new ProcessBuilder(jcmd, Long.toString(target.pid()), "GC.run").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The gateway's CPU by kind of thread from /proc ({@link ProcessCpu#split}), or null. */
    ProcessCpu.Split cpuSplit() {
        return target.hasPid() ? ProcessCpu.split(target.pid()) : null;
    }

    /** CPU seconds (user + system) of the gateway from /proc, or NaN. */
    double procCpuSeconds() {
        return target.hasPid() ? ProcessCpu.seconds(target.pid()) : Double.NaN;
    }

    /**
     * A snapshot; with {@code gcFirst}, a full GC runs before the metrics are read. Its CPU is the process's less
     * every full GC this observer asked for: a phase's CPU is then the server's own work, not the bench's heap reading
     * (the "after-ramp" GC alone was 0.011-0.015 ms per connection at 18,000 devices, 1-1.5 % of a JIT-warm handshake).
     */
    GatewaySnapshot snapshot(String label, double t, boolean gcFirst) {
        boolean gcRun = false;
        if (gcFirst && jvm) {
            double beforeGc = procCpuSeconds();
            gcRun = gc();
            double afterGc = procCpuSeconds();
            if (afterGc > beforeGc) {
                forcedGcCpuSeconds += afterGc - beforeGc;
            }
            if (gcRun) {
                sleep(500);
            }
        }
        double cpu = procCpuSeconds() - forcedGcCpuSeconds;
        PrometheusText m = PrometheusText.parse("");
        if (target.hasMetrics()) {
            try {
                m = PrometheusText.parse(fetch());
            } catch (IOException e) {
                System.err.println("warning: cannot read gateway metrics: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (Double.isNaN(cpu)) {
            cpu = m.sum("process_cpu_time_ns_total") / 1e9;
        }
        double direct = m.sum("jvm_buffer_memory_used_bytes", "id=\"direct\"");
        double rss = procRssBytes();
        if (Double.isNaN(rss)) {
            rss = m.sum("mqttgw_process_resident_memory_bytes");
        }
        return new GatewaySnapshot(label, t, m.sum("mqttgw_connections_open"), m.sum("mqttgw_channels_open"),
                rss, m.sum("jvm_memory_used_bytes", "area=\"heap\""),
                direct, m.sum("mqttgw_netty_direct_memory_used_bytes"), cpu,
                m.sum("mqttgw_tls_handshakes_total", "session=\"new\""),
                m.sum("mqttgw_tls_handshakes_total", "session=\"resumed\""), m.sum("mqttgw_publish_in_total"),
                m.sum("mqttgw_disconnects_total"), gcRun ? 1 : 0, forcedGcCpuSeconds);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
