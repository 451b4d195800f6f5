package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.report.HtmlReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 50 simulated devices against a real gateway on 127.0.0.1 (mutual TLS with per-device certificates from the bench
 * CA): every device connects and every QoS 1 PUBLISH is acknowledged; the report files are written.
 */
class ConnectAndPublishIT {

    @Test
    @Timeout(60)
    @SuppressWarnings("unchecked")
    void fiftyDevicesConnectAndEveryQos1PublishIsAcknowledged(@TempDir Path dir) throws Exception {
        try (BenchTarget target = BenchTarget.start(dir)) {
            BenchOptions options = BenchCommand.parseScenario(Scenario.PUBLISH, target.with(
                    "--devices", "50",
                    "--ramp-rate", "200", "--settle", "0s", "--ramp-timeout", "20s",
                    "--rate", "100", "--qos", "1", "--duration", "3s",
                    "--out", dir.resolve("out").toString()));

            RunResult result = new ScenarioRunner(options, System.out).run();
            HtmlReport.write(result, options.run().outDir());

            Map<String, Object> ramp = (Map<String, Object>) result.summary().get("ramp");
            Map<String, Object> publish = (Map<String, Object>) result.summary().get("publish");
            assertEquals(50, ramp.get("connected"), "every device connected: " + result.summary());
            long sent = (long) publish.get("publishedQos1");
            assertTrue(sent >= 200, "published " + sent);
            assertEquals(sent, (long) publish.get("acked"), "every QoS 1 PUBLISH acknowledged");
            assertTrue(result.ok(), "no problems: " + result.summary().get("problems"));
            Map<String, Object> memory = (Map<String, Object>) result.summary().get("memoryPerConnection");
            assertEquals(50.0, memory.get("connections"), "gateway metrics were read before and after the ramp");
            assertTrue(Files.readString(options.run().outDir().resolve("report.html")).contains("<svg"));
            assertTrue(Files.readString(options.run().outDir().resolve("summary.json")).contains("\"acked\""));
        }
    }
}
