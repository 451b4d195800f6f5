package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RefusedOutrightTest {

    private static Timeline.Totals totals(long connacks, Map<String, Long> failures) {
        return new Timeline.Totals(200, 0, 0, 0, 0, connacks, 0, 0, failures, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void aServerThatRefusesTheProtocolVersionToEveryDeviceStopsTheRamp() {
        assertEquals("connack_refused_unsupported_protocol_version", ScenarioRunner.refusedOutright(totals(0,
                Map.of("connack_refused_unsupported_protocol_version", 20L, "devices_failed_more_than_once", 3L)),
                200));
    }

    @Test
    void tooFewAttemptsTransientReasonsMixedReasonsOrAnyConnackGoOn() {
        assertNull(ScenarioRunner.refusedOutright(totals(0,
                Map.of("connack_refused_unsupported_protocol_version", 19L)), 200));
        assertNull(ScenarioRunner.refusedOutright(totals(0, Map.of("connack_refused_server_unavailable", 50L)), 200));
        assertNull(ScenarioRunner.refusedOutright(totals(0, Map.of("connack_refused_not_authorized", 30L,
                "connect_refused", 1L)), 200));
        assertNull(ScenarioRunner.refusedOutright(totals(1, Map.of("connack_refused_not_authorized", 30L)), 200));
        assertNull(ScenarioRunner.refusedOutright(totals(0, Map.of()), 200));
    }

    @Test
    void aSmallFleetNeedsEveryDeviceRefusedOnce() {
        assertEquals("connack_refused_not_authorized",
                ScenarioRunner.refusedOutright(totals(0, Map.of("connack_refused_not_authorized", 5L)), 5));
    }
}
