package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.Scenario;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench storm --reconnect-after}: against a real gateway on 127.0.0.1, the dropped half waits, the gateway is
 * read while only the other half is connected (its closes done, no reconnect begun), and then all come back,
 * resuming their TLS sessions.
 */
class StormReconnectAfterIT {

    @Test
    @Timeout(90)
    @SuppressWarnings("unchecked")
    void readsTheGatewayAfterTheClosesAndBeforeAnyDroppedDeviceReturns(@TempDir Path dir) throws Exception {
        try (BenchTarget target = BenchTarget.start(dir)) {
            BenchOptions options = BenchCommand.parseScenario(Scenario.STORM, target.with(
                    "--devices", "40",
                    "--ramp-rate", "200", "--settle", "0s", "--ramp-timeout", "30s",
                    "--drop", "0.5", "--resume", "true", "--backoff-base", "10ms", "--backoff-max", "1s",
                    "--reconnect-after", "4s", "--recover-timeout", "40s",
                    "--out", dir.resolve("out").toString()));

            RunResult result = new ScenarioRunner(options, System.out).run();

            Map<String, Object> storm = (Map<String, Object>) result.summary().get("storm");
            assertEquals(20L, ((Number) storm.get("dropped")).longValue(), "half dropped: " + storm);
            assertEquals(4.0, storm.get("reconnectAfterSeconds"));
            assertEquals(20.0, storm.get("connectionsOpenWhileDropped"),
                    "read with the dropped half closed and none of it back: " + storm);
            assertEquals(true, storm.get("recovered"), "all back: " + storm);
            assertEquals(20L, ((Number) storm.get("clientHandshakesResumed")).longValue(),
                    "the dropped half resumed its sessions: " + storm);
            assertTrue(result.gateway().stream().anyMatch(g -> g.label().equals("storm-dropped")));
            // the recovery time is the last CONNACK's own time, not the once-a-second poll that saw it
            double seconds = ((Number) storm.get("secondsToRecover")).doubleValue();
            double polled = ((Number) storm.get("secondsToRecoverPolled")).doubleValue();
            assertTrue(seconds > 0 && seconds < polled, "recovery " + seconds + " s, polled " + polled + " s");
            // the client's own CPU over the storm (20 TLS handshakes and the coordinator's ticks) is read too
            assertTrue(((Number) storm.get("clientCpuSeconds")).doubleValue() > 0, "client CPU: " + storm);
            assertTrue(Double.isFinite(((Number) storm.get("clientCpuMillisPerReconnect")).doubleValue()),
                    "client CPU per reconnect: " + storm);
        }
    }
}
