package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
 * Idle devices held against a real gateway with a 1 s keepalive: the hold's summary counts the PINGREQs the server
 * answered (a per-packet CPU figure divides by them), not only those the devices sent.
 */
class HoldPingsIT {
    private static final int DEVICES = 20;

    @Test
    @Timeout(90)
    @SuppressWarnings("unchecked")
    void holdReportsThePingreqsTheServerAnswered(@TempDir Path dir) throws Exception {
        try (BenchTarget target = BenchTarget.start(dir)) {
            BenchOptions options = BenchCommand.parseScenario(Scenario.CONNECT, target.with(
                    "--devices", Integer.toString(DEVICES), "--keepalive", "1s",
                    "--ramp-rate", "200", "--settle", "0s", "--ramp-timeout", "30s", "--hold", "4s",
                    "--out", dir.resolve("out").toString()));

            RunResult result = new ScenarioRunner(options, System.out).run();

            Map<String, Object> hold = (Map<String, Object>) result.summary().get("hold");
            assertEquals(DEVICES, hold.get("connectedAtEnd"), "every device held: " + result.summary());
            Map<String, Object> answered = (Map<String, Object>) hold.get("pingRespMs");
            assertNotNull(answered, "hold has pingRespMs: " + hold);
            long pings = (long) hold.get("pings");
            long count = (long) answered.get("count");
            assertTrue(pings >= 2 * DEVICES, "devices pinged once a second: " + hold);
            // the reports arrive once a second per worker: a ping and its answer may fall either side of the edges
            assertTrue(Math.abs(count - pings) <= 2 * DEVICES, "answered " + count + " of " + pings + " sent");
            assertEquals(0L, hold.get("unexpectedDisconnects"));
        }
    }
}
