package io.mqttgw.bench.producer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time from {@code /proc}: of a process, and of the threads of this process whose name starts with a prefix.
 * Threads are found by name because the producer's network thread is the client library's own, and by
 * {@code /proc} rather than the JVM because the broker is another process. The figures come in clock ticks
 * ({@code getconf CLK_TCK}, usually 10 ms), so a window must be long enough for that to be a small error.
 */
final class ProcCpu {
    /** A thread's name as {@code /proc} shows it: the kernel keeps at most 15 bytes of it. */
    static final int COMM_LENGTH = 15;

    private final long nanosPerTick;

    private ProcCpu(long nanosPerTick) {
        this.nanosPerTick = nanosPerTick;
    }

    /** Null where there is no {@code /proc} (not Linux): the tool then reports no CPU figures from it. */
    static ProcCpu open() {
        if (!Files.isReadable(Path.of("/proc/self/stat"))) {
            return null;
        }
        return new ProcCpu(TimeUnit.SECONDS.toNanos(1) / clockTicksPerSecond());
    }

    private static long clockTicksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            // the kernel's USER_HZ is 100 on every architecture Linux runs Java on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }

    /** User plus system CPU of process {@code pid} so far, in nanoseconds; -1 when it is gone. */
    long process(long pid) {
        return ticks(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /** User plus system CPU of this process so far, in nanoseconds. */
    long self() {
        return ticks(Path.of("/proc/self/stat"));
    }

    /**
     * User plus system CPU so far of this process's live threads whose name starts with {@code prefix} (cut to
     * what {@code /proc} keeps), in nanoseconds; 0 when there is none.
     */
    long threads(String prefix) {
        String comm = prefix.length() > COMM_LENGTH ? prefix.substring(0, COMM_LENGTH) : prefix;
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
                } catch (IOException e) {
                    continue; // ended while listed
                }
                if (name.startsWith(comm)) {
                    long t = ticks(task.resolve("stat"));
                    sum += Math.max(t, 0);
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return sum;
    }

    private long ticks(Path stat) {
        String line;
        try {
            line = Files.readString(stat, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return -1;
        }
        // the name in parentheses may hold spaces and parentheses; the fields after the last ')' are fixed
        String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * nanosPerTick;
    }
}
