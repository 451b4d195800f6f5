package io.mqttgw.bench.sim.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields after the command: state(3) ... utime(14) stime(15); index 0 here is field 3
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLOCK_TICKS;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
