package io.mqttgw.bench.sim.scenario;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time (user + system) of a process from {@code /proc/<pid>/stat}: the server's, read from outside whatever it
 * is (a JVM or Mosquitto), and the bench's own processes', so a run on one machine shows how much of the CPU the
 * client took. Any thread.
 */
final class ProcessCpu {
    /** USER_HZ: Linux reports utime and stime in ticks of 1/100 s on every architecture the bench runs on. */
    private static final double CLOCK_TICKS = 100.0;

    private ProcessCpu() {
    }

    /** CPU seconds of process {@code pid}, or NaN when it cannot be read (gone, or not Linux). */
    static double seconds(long pid) {
        try {
            long[] t = userAndSystemTicks(Path.of("/proc", Long.toString(pid), "stat"));
            return (t[0] + t[1]) / CLOCK_TICKS;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * The process's CPU split four ways, in seconds: user and system time of every thread that is neither a JIT
     * compiler nor a GC thread (for a server, its I/O and other work), then all time of the JIT compiler threads
     * and of the GC threads, recognised by the names HotSpot gives them. A non-JVM server has only the first two.
     * Threads that ended before the reading are missing from it, so a split is for differences between readings of
     * long-lived threads. Null when /proc cannot be read.
     */
    static Split split(long pid) {
        double user = 0;
        double system = 0;
        double jit = 0;
        double gc = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                long[] t;
                String name;
                try {
                    t = userAndSystemTicks(task.resolve("stat"));
                    name = Files.readString(task.resolve("comm")).trim();
                } catch (IOException | RuntimeException gone) {
                    continue;
                }
                switch (kind(name)) {
                    case JIT -> jit += (t[0] + t[1]) / CLOCK_TICKS;
                    case GC -> gc += (t[0] + t[1]) / CLOCK_TICKS;
                    default -> {
                        user += t[0] / CLOCK_TICKS;
                        system += t[1] / CLOCK_TICKS;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return new Split(user, system, jit, gc);
    }

    enum Kind { JIT, GC, OTHER }

    /** HotSpot's names: "C2 CompilerThre", "C1 CompilerThre"; "GC Thread#0", "G1 Main Marker", "G1 Conc#0", ... */
    static Kind kind(String threadName) {
        if (threadName.contains("CompilerThre")) {
            return Kind.JIT;
        }
        if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ")) {
            return Kind.GC;
        }
        return Kind.OTHER;
    }

    private static long[] userAndSystemTicks(Path stat) throws IOException {
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        // fields after the command: state(3) ... utime(14) stime(15); index 0 here is field 3
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    /** CPU seconds by kind of thread (see {@link #split}). Immutable. */
    record Split(double user, double system, double jit, double gc) {
        Split minus(Split earlier) {
            return new Split(user - earlier.user, system - earlier.system, jit - earlier.jit, gc - earlier.gc);
        }

        Map<String, Object> millisPer(double count) {
            return per(count, 1e3);
        }

        Map<String, Object> microsPer(double count) {
            return per(count, 1e6);
        }

        private Map<String, Object> per(double count, double scale) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("user", user / count * scale);
            m.put("system", system / count * scale);
            m.put("jit", jit / count * scale);
            m.put("gc", gc / count * scale);
            return m;
        }
    }
}
