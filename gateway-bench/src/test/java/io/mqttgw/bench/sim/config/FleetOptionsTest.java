package io.mqttgw.bench.sim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mqttgw.bench.sim.cli.BenchCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetOptionsTest {

    @Test
    void workersShareRampRateAndHandshakeCapSoTheTotalsHold() {
        FleetOptions fleet = BenchCommand.parseScenario(Scenario.CONNECT, List.of("--devices", "30000", "--workers",
                "3",
                "--ramp-rate", "400", "--max-handshakes", "200")).fleet();
        int rate = 0;
        int cap = 0;
        for (int w = 0; w < 3; w++) {
            rate += fleet.forWorker(w, 3).rampRate();
            cap += fleet.forWorker(w, 3).maxHandshakes();
        }
        assertEquals(400, rate);
        assertEquals(200, cap);
    }

    @Test
    void everyWorkerGetsAtLeastOneConnectionPerSecond() {
        assertEquals(1, FleetOptions.share(2, 4, 5));
    }
}
