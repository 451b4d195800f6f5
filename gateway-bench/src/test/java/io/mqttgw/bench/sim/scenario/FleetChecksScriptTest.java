package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The figures bin/fleet-checks.sh computes for fleet-node-kill.sh out of the nodes' sampled /metrics and the bench's
 * per-second lines, run with bash on samples written here. A sample line is "epoch_ms node overload_transitions
 * listeners_open connects_accepted route_work disconnects connections" (fleet_figures).
 */
class FleetChecksScriptTest {
    private static final Path SCRIPT = Path.of("bin/fleet-checks.sh");

    @TempDir
    Path dir;

    private String call(String function, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", "-c",
                "set -euo pipefail; NODES=3; source \"$0\"; " + function + " \"$@\"", SCRIPT.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(true, p.waitFor(30, TimeUnit.SECONDS), "bash did not end");
        assertEquals(0, p.exitValue(), out);
        return out.trim();
    }

    private String file(String name, String... lines) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return f.toString();
    }

    @Test
    void readsTheSampleOutOfANodesMetricsText() throws Exception {
        String metrics = String.join("\n",
                "# HELP mqttgw_overload_transitions_total Times the node entered or left overload",
                "mqttgw_overload_transitions_total 3.0",
                "mqttgw_listeners_open 1.0",
                "mqttgw_connects_total{result=\"accepted\"} 120.0",
                "mqttgw_connects_total{result=\"refused_not_authorized\"} 4.0",
                "mqttgw_routes_redis_queue_depth 7.0",
                "mqttgw_routes_redis_pending_operations 5.0",
                "mqttgw_disconnects_total{reason=\"client\"} 2.0",
                "mqttgw_disconnects_total{reason=\"keepalive\"} 1.0",
                "mqttgw_connections_open 118.0");
        assertEquals("3 1 120 12 3 118", call("fleet_figures", metrics));
        assertEquals("0 - 0 0 0 0", call("fleet_figures", "mqttgw_listeners_opened_total 1.0"),
                "a node without the listener gauge is never taken for one whose listener closed");
    }

    @Test
    void countsFlapsOfSurvivorsFromTheSteadyStateOnAndNeverTheKilledNodes() throws Exception {
        String samples = file("samples",
                // before the steady state (1500): an overload during the ramp is not a flap of the wave
                "1000 0 2 0 10 0 0 100", "1000 1 0 1 10 0 0 100", "1000 2 0 1 10 0 0 100",
                "2000 0 2 1 10 0 0 100", "2000 1 0 1 10 0 0 100", "2000 2 0 1 10 0 0 100",
                // node 1 enters overload and closes its listener, the victim (2) too before it dies
                "3000 0 2 1 20 5 0 150", "3000 1 1 0 30 9 0 150", "3000 2 1 0 10 0 0 100",
                "4000 0 2 1 25 0 0 150", "4000 1 2 1 35 0 0 150");
        assertEquals("2 1", call("survivor_flaps", samples, "1500", "2", "/dev/null"));
    }

    @Test
    void leavesOutARestartingNodeUntilItIsReadyAndCountsItsNewCounterWhole() throws Exception {
        String samples = file("samples",
                "1000 0 0 1 10 0 0 100", "1000 1 2 1 10 0 0 100",
                // node 1 drains (listener closed on purpose), then comes back: 3 transitions since its start
                "2000 0 0 1 10 0 0 100", "2000 1 2 0 10 0 0 0",
                "3000 0 0 1 10 0 0 100", "3000 1 3 1 5 0 0 90",
                "4000 0 0 1 10 0 0 100", "4000 1 3 1 5 0 0 90");
        String restarts = file("restarts", "1 1800 2500");
        assertEquals("3 0", call("survivor_flaps", samples, "0", "-1", restarts));
        assertEquals("1 1", call("survivor_flaps", samples, "0", "-1", "/dev/null"),
                "without its restart the closed listener is a flap and the counter one that went on");
    }

    @Test
    void outageFiguresCountTheSurvivorsAndTimeTheDrainFromRedisReturn() throws Exception {
        String samples = file("samples",
                "1000 0 0 1 10 0 0 100", "1000 1 0 1 10 0 0 100", "1000 2 0 1 10 0 0 100",
                // the outage from 2500 to 3500 (node 2 killed at its start)
                "3000 0 0 1 20 50 0 150", "3000 1 0 1 30 70 1 150",
                "4000 0 0 1 25 40 0 150", "4000 1 0 1 35 10 1 150",
                "5000 0 0 1 25 0 2 150", "5000 1 0 1 35 0 1 150",
                "6000 0 0 1 25 0 2 150", "6000 1 0 1 35 0 1 150",
                // after the window: the bench closing its devices is not counted
                "7000 0 0 1 25 0 90 0", "7000 1 0 1 35 0 91 0");
        assertEquals("30 50/70/- 3 1.5", call("outage_node_figures", samples, "2", "2500", "3500", "6000"));
    }

    @Test
    void saysNeverWhenRouteWorkIsStillWaitingAtTheEndOfTheWindow() throws Exception {
        String samples = file("samples",
                "1000 0 0 1 10 0 0 100", "1000 1 0 1 10 0 0 100",
                "4000 0 0 1 10 0 0 100", "4000 1 0 1 10 3 0 100",
                "5000 0 0 1 10 0 0 100", "5000 1 0 1 10 3 0 100");
        assertEquals("0 0/3/- 0 never", call("outage_node_figures", samples, "2", "2500", "3500", "6000"));
    }

    @Test
    void sumsFailedAttemptsAndAcknowledgementsOfTheBenchLinesInTheOutage() throws Exception {
        String out = file("bench.out",
                "[  10.0s] steady  connected 900/900 connecting 0 | tls/s 0 full + 0 resumed | fail/s 7  | pub/s 60 "
                        + "ack/s 60 | ack p50 1.00 p99 2.00 ms | dropped 0 lost 0 | nodes 300/300/300",
                "[  11.0s] steady  connected 600/900 connecting 300 | tls/s 0 full + 0 resumed | fail/s 2 "
                        + "{refused=2} | pub/s 40 ack/s 40 | ack p50 1.00 p99 2.00 ms | dropped 300 lost 0",
                "[  12.5s] steady  connected 900/900 connecting 0 | tls/s 250 full + 50 resumed | fail/s 1  | pub/s 60 "
                        + "ack/s 60 | ack p50 1.00 p99 2.00 ms | dropped 0 lost 0",
                "[  14.0s] steady  connected 900/900 connecting 0 | tls/s 0 full + 0 resumed | fail/s 5  | pub/s 60 "
                        + "ack/s 60 | ack p50 1.00 p99 2.00 ms | dropped 0 lost 0");
        // the lines after 10.0 s up to 12.5 s: 40 acks/s for 1 s, 60 acks/s for 1.5 s
        assertEquals("3 130", call("outage_bench_figures", out, "10.0", "2.5"));
    }
}
