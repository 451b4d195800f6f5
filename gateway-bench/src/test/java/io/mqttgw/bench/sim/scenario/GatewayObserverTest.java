package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.GatewayTarget;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayObserverTest {
    @TempDir
    Path dir;

    private Path proc(String exe, String cmdline) throws Exception {
        Path p = Files.createDirectories(dir.resolve(Long.toString(System.nanoTime())));
        if (exe != null) {
            Files.createSymbolicLink(p.resolve("exe"), Path.of(exe));
        }
        Files.writeString(p.resolve("cmdline"), cmdline);
        return p;
    }

    @Test
    void recognisesAJvmByItsExecutableOrCommandLine() throws Exception {
        assertTrue(GatewayObserver.isJvm(proc("/usr/lib/jvm/java-17/bin/java", "java\0-Xmx1g\0")));
        assertTrue(GatewayObserver.isJvm(proc(null, "/opt/jdk/bin/java\0-cp\0x\0")));
    }

    @Test
    void neverTakesMosquittoForAJvmSoItIsNotSignalled() throws Exception {
        assertFalse(GatewayObserver.isJvm(proc("/usr/sbin/mosquitto", "mosquitto\0-c\0/etc/m.conf\0")));
        assertFalse(GatewayObserver.isJvm(proc(null, "/usr/sbin/mosquitto\0-c\0java.conf\0")));
        assertFalse(GatewayObserver.isJvm(dir.resolve("no-such-process")));
    }

    @Test
    void readsNothingFromAProcessThatIsGone() {
        assertTrue(Double.isNaN(new GatewayObserver(new io.mqttgw.bench.sim.config.GatewayTarget("127.0.0.1", 1,
                null, Long.MAX_VALUE - 1)).procRssBytes()));
    }

    /**
     * The heap reading's full GC is the bench's work, not the server's: with 3 million live objects a full GC costs
     * the otherwise idle JVM tens of milliseconds of CPU, and the CPU between two GC'd snapshots leaves it out.
     */
    @Test
    void leavesTheCpuOfItsOwnFullGcsOutOfTheServersCpu() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xmx512m", "-XX:+UseG1GC", "-cp",
                System.getProperty("java.class.path"), LiveHeap.class.getName()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("ready", out.readLine());
            Thread.sleep(1_000);
            GatewayObserver observer = new GatewayObserver(new GatewayTarget("127.0.0.1", 1, null, child.pid()));
            GatewaySnapshot first = observer.snapshot("first", 0, true);
            GatewaySnapshot second = observer.snapshot("second", 1, true);
            assertEquals(1, second.gcRun(), "jcmd GC.run reached the child");
            double gcCpu = second.forcedGcCpuSeconds() - first.forcedGcCpuSeconds();
            assertTrue(gcCpu >= 0.03, "a full GC of 3 million objects took measurable CPU: " + gcCpu + " s");
            double between = second.cpuSeconds() - first.cpuSeconds();
            assertTrue(between < gcCpu / 2, "CPU between the snapshots (" + between
                    + " s) leaves out the second snapshot's full GC (" + gcCpu + " s)");
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** An idle JVM holding about 100 MB of small live objects; prints "ready" once they are allocated. */
    public static final class LiveHeap {
        public static void main(String[] args) throws Exception {
            List<long[]> live = new ArrayList<>();
            for (int i = 0; i < 3_000_000; i++) {
                live.add(new long[2]);
            }
            System.out.println("ready");
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2));
            System.out.println(live.size());
        }
    }
}
