package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
