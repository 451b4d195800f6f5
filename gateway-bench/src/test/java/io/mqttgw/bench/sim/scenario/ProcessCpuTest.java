package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ProcessCpuTest {
    /** Keeps the burning loop's result alive, so the JIT cannot drop the loop. */
    static volatile long sink;

    @Test
    void tellsHotSpotsCompilerAndGcThreadsFromTheServersOwn() {
        assertEquals(ProcessCpu.Kind.JIT, ProcessCpu.kind("C2 CompilerThre"));
        assertEquals(ProcessCpu.Kind.JIT, ProcessCpu.kind("C1 CompilerThre"));
        assertEquals(ProcessCpu.Kind.GC, ProcessCpu.kind("GC Thread#1"));
        assertEquals(ProcessCpu.Kind.GC, ProcessCpu.kind("G1 Conc#0"));
        assertEquals(ProcessCpu.Kind.GC, ProcessCpu.kind("G1 Refine#0"));
        assertEquals(ProcessCpu.Kind.OTHER, ProcessCpu.kind("mqtt-io-1-1"));
        assertEquals(ProcessCpu.Kind.OTHER, ProcessCpu.kind("mosquitto"));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void chargesAThreadsWorkToUserAndSystemTime() {
        long pid = ProcessHandle.current().pid();
        ProcessCpu.Split before = ProcessCpu.split(pid);
        assertNotNull(before);
        burnCpuMillis(300);
        ProcessCpu.Split work = ProcessCpu.split(pid).minus(before);
        // /proc counts in 10 ms ticks; this thread alone used 300 ms
        assertTrue(work.user() + work.system() >= 0.25, "user " + work.user() + " system " + work.system());
        assertTrue(work.user() + work.system() + work.jit() + work.gc() <= ProcessCpu.seconds(pid),
                "split within total");
    }

    @Test
    void givesASplitPerCountInMillisOrMicros() {
        ProcessCpu.Split split = new ProcessCpu.Split(3.0, 1.0, 0.5, 0.25);
        assertEquals(Map.of("user", 3.0, "system", 1.0, "jit", 0.5, "gc", 0.25), split.millisPer(1000));
        assertEquals(Map.of("user", 30.0, "system", 10.0, "jit", 5.0, "gc", 2.5), split.microsPer(100_000));
    }

    private static void burnCpuMillis(long millis) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + millis * 1_000_000L;
        long x = 1;
        while (threads.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink = x;
    }
}
