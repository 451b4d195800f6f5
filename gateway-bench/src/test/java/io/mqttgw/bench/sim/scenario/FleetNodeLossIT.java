package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.bench.sim.worker.WorkerReport;
import io.mqttgw.bench.sim.worker.WorkerRuntime;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench as the balancer of two real gateways on 127.0.0.1: devices spread over both; when one node goes away
 * every one of its devices comes back on the other, none of the other node's devices is dropped, and no device sees
 * a failed attempt (a refused connect is sent on to the live node, as a balancer with redispatch does).
 */
class FleetNodeLossIT {
    private static final int DEVICES = 50;

    @Test
    @Timeout(90)
    void everyDeviceOfAClosedNodeComesBackOnTheOtherWithoutAFailedAttempt(@TempDir Path dir) throws Exception {
        TestPki serverPki = TestPki.create(dir.resolve("server-pki"));
        BenchPki benchPki = BenchPki.open(dir.resolve("bench-pki"), KeyAlgorithm.EC);
        Gateway survivor = node(serverPki, benchPki, dir.resolve("a"));
        Gateway leaving = node(serverPki, benchPki, dir.resolve("b"));
        try {
            BenchOptions options = BenchCommand.parseScenario(Scenario.FLEET, List.of("--workers", "0",
                    "--devices", Integer.toString(DEVICES), "--admin", "none",
                    "--nodes", "127.0.0.1:" + survivor.tlsPort() + "/" + survivor.adminPort() + ",127.0.0.1:"
                            + leaving.tlsPort() + "/" + leaving.adminPort(),
                    // polled rarely, so the devices' reconnects reach the closed node before the poll takes it out
                    "--health-interval", "30s",
                    "--ramp-rate", "200", "--backoff-base", "50ms", "--backoff-max", "2s",
                    "--pki-dir", dir.resolve("bench-pki").toString(),
                    "--server-ca", serverPki.caFile().toString(), "--out", dir.resolve("out").toString()));
            try (WorkerRuntime devices = new WorkerRuntime(options, 0, 1, n -> { })) {
                devices.start();
                WorkerReport ramped = await(devices, r -> r.connected() == DEVICES, "all connected");
                Map<String, Long> before = ramped.fleet();
                long onLeaving = before.get("node.1.connected");
                assertTrue(before.get("node.0.connected") > 0 && onLeaving > 0, "spread over both: " + before);
                assertEquals(DEVICES, before.get("node.0.connected") + onLeaving);

                leaving.close();

                WorkerReport after = await(devices, r -> r.fleet().get("node.0.connected") == DEVICES
                        && r.fleet().get("awaitingReturn") == 0 && r.connected() == DEVICES, "all on the survivor");
                Map<String, Long> f = after.fleet();
                assertEquals(onLeaving, f.get("returns"), "every device of the closed node came back: " + f);
                assertEquals(onLeaving, f.get("node.1.drops"), f.toString());
                assertEquals(0L, f.get("node.0.drops"), "no collateral drop on the survivor: " + f);
                assertEquals(Map.of(), after.failures(), "no device saw a failed attempt: " + f);
                assertTrue(f.get("node.1.refused") > 0, "the closed node refused and the attempts moved on: " + f);
                assertEquals(0L, f.get("node.1.live"), "the node that refused is out: " + f);
            }
        } finally {
            leaving.close();
            survivor.close();
        }
    }

    /**
     * The leaving node's sink never acknowledges, so every QoS 1 PUBLISH its devices send is still unacknowledged
     * when it closes; with persistent sessions the devices resend them to the survivor, which acknowledges them all.
     */
    @Test
    @Timeout(120)
    void persistentDevicesResendWhatTheClosedNodeNeverAcknowledgedAndLoseNothing(@TempDir Path dir)
            throws Exception {
        TestPki serverPki = TestPki.create(dir.resolve("server-pki"));
        BenchPki benchPki = BenchPki.open(dir.resolve("bench-pki"), KeyAlgorithm.EC);
        Gateway survivor = node(serverPki, benchPki, dir.resolve("a"));
        Gateway leaving = node(serverPki, benchPki, dir.resolve("b"), "controlled");
        try {
            BenchOptions options = BenchCommand.parseScenario(Scenario.FLEET, List.of("--workers", "0",
                    "--devices", Integer.toString(DEVICES), "--admin", "none",
                    "--nodes", "127.0.0.1:" + survivor.tlsPort() + "/" + survivor.adminPort() + ",127.0.0.1:"
                            + leaving.tlsPort() + "/" + leaving.adminPort(),
                    "--health-interval", "30s", "--clean-session", "false",
                    "--profile", "field", "--heartbeat-interval", "1s", "--heartbeat-qos", "1",
                    "--ramp-rate", "200", "--backoff-base", "50ms", "--backoff-max", "2s",
                    "--pki-dir", dir.resolve("bench-pki").toString(),
                    "--server-ca", serverPki.caFile().toString(), "--out", dir.resolve("out").toString()));
            try (WorkerRuntime devices = new WorkerRuntime(options, 0, 1, n -> { })) {
                devices.start();
                await(devices, r -> r.connected() == DEVICES, "all connected");
                await(devices, r -> r.fleet().get("qos1Outstanding") >= 2 * r.fleet().get("node.1.connected"),
                        "two heartbeats of every device on the leaving node waiting for their PUBACK");

                leaving.close();

                WorkerReport after = await(devices, r -> r.fleet().get("node.0.connected") == DEVICES
                        && r.fleet().get("qos1Resent") > 0
                        && r.fleet().get("qos1AckedAfterResend").equals(r.fleet().get("qos1Resent")),
                        "every resent PUBLISH acknowledged by the survivor");
                Map<String, Long> f = after.fleet();
                assertTrue(f.get("qos1Resent") >= 2 * f.get("returns"), "each moved device resent its own: " + f);
                assertEquals(0L, f.get("qos1Abandoned"), f.toString());
                assertEquals(0L, f.get("qos1WindowFull"), f.toString());
                // the overdue count is refreshed once a second: after two refreshes nothing sent is still waiting
                Thread.sleep(2_500);
                assertEquals(0L, devices.report().fleet().get("qos1Overdue"), "nothing lost: " + f);
            }
        } finally {
            leaving.close();
            survivor.close();
        }
    }

    private static Gateway node(TestPki serverPki, BenchPki benchPki, Path dir) throws Exception {
        return node(serverPki, benchPki, dir, "discard");
    }

    private static Gateway node(TestPki serverPki, BenchPki benchPki, Path dir, String sink) throws Exception {
        return TestGateway.tls(serverPki, dir)
                .with("listener.tls.ca-file", benchPki.caFile().toString())
                .with("uplink.sink", sink)
                .start();
    }

    private static WorkerReport await(WorkerRuntime devices, Predicate<WorkerReport> done, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + 45_000_000_000L;
        WorkerReport r = devices.report();
        while (!done.test(r)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not " + what + " within 45 s: connected " + r.connected() + ", "
                        + r.fleet() + ", failures " + r.failures());
            }
            Thread.sleep(100);
            r = devices.report();
        }
        return r;
    }
}
