package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.bench.sim.worker.WorkerReport;
import io.mqttgw.bench.sim.worker.WorkerRuntime;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device whose every node refuses: the balancer tries the other node once on the first refusal, then no more
 * (both are out), the device sees one failure per attempt and backs off between attempts instead of hammering.
 */
class BalancedReconnectTest {

    @Test
    @Timeout(60)
    void whenEveryNodeRefusesTheDeviceFailsOncePerAttemptAndBacksOff(@TempDir Path dir) throws Exception {
        BenchPki.open(dir.resolve("pki"), KeyAlgorithm.EC);
        BenchOptions options = BenchCommand.parseScenario(Scenario.FLEET, List.of("--workers", "0",
                "--devices", "1", "--admin", "none",
                "--nodes", "127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort(),
                "--health-interval", "60s", "--backoff-base", "200ms", "--backoff-max", "200ms",
                "--pki-dir", dir.resolve("pki").toString(), "--out", dir.resolve("out").toString()));
        try (WorkerRuntime devices = new WorkerRuntime(options, 0, 1, n -> { })) {
            devices.start();
            Thread.sleep(3_000);
            WorkerReport r = devices.report();
            Map<String, Long> f = r.fleet();
            long failures = r.failures().getOrDefault(FailureReasons.CONNECT_REFUSED, 0L);
            long refused = f.get("node.0.refused") + f.get("node.1.refused");
            assertTrue(failures >= 3, "kept trying: " + r.failures());
            // uniform delays of at most 200 ms give about 30 attempts in 3 s; without a backoff it would be thousands
            assertTrue(failures < 150, "backed off between attempts: " + failures);
            // the first attempt was sent on to the second node; later ones find both out and fail at once
            assertTrue(refused == failures + 1 || refused == failures + 2, "refused " + refused + ", failed "
                    + failures + ": " + f);
            assertEquals(1L, r.failures().get(FailureReasons.DEVICE_FAILED_AGAIN), "one device failing again");
            assertEquals(0L, f.get("node.0.live") + f.get("node.1.live"), "both nodes out: " + f);
        }
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
