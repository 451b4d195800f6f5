package io.mqttgw.bench.sim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionsParserTest {

    @Test
    void requiresDeviceCount() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--port", "8883")));
        assertTrue(e.getMessage().contains("--devices"), e.getMessage());
    }

    @Test
    void suggestsClosestOptionForTypo() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "5", "--ramp-rat", "10")));
        assertTrue(e.getMessage().contains("did you mean --ramp-rate"), e.getMessage());
    }

    @Test
    void rejectsOutOfRangeNumbersNamingTheAllowedRange() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "5", "--port", "70000")));
        assertTrue(e.getMessage().contains("1 to 65535"), e.getMessage());
    }

    @Test
    void rejectsValueThatIsNotANumber() {
        assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "many")));
    }

    @Test
    void rejectsOptionWithoutValue() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--devices")));
        assertTrue(e.getMessage().contains("needs a value"), e.getMessage());
    }

    @Test
    void rejectsDurationWithoutUnit() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "5", "--hold", "10")));
        assertTrue(e.getMessage().contains("10s"), e.getMessage());
    }

    @Test
    void spreadsDevicesOverEnoughWorkersByDefault() {
        BenchOptions o = OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "40000"));
        assertEquals(3, o.fleet().workers());
        assertEquals(18_000, o.fleet().perWorker());
    }

    @Test
    void refusesTooFewWorkersForTheDeviceCount() {
        assertThrows(BadArgumentException.class, () -> OptionsParser.parse(Scenario.CONNECT,
                List.of("--devices", "40000", "--workers", "2")));
    }

    @Test
    void soakDefaultsToFieldProfileAndConnectToIdle() {
        assertTrue(OptionsParser.parse(Scenario.SOAK, List.of("--devices", "1")).profile().enabled());
        assertFalse(OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "1")).profile().enabled());
    }

    @Test
    void fieldProfileDefaultsMatchTheField() {
        TrafficProfile p = OptionsParser.parse(Scenario.SOAK, List.of("--devices", "1")).profile();
        assertEquals(Duration.ofSeconds(15), p.heartbeatInterval());
        assertEquals(20, p.heartbeatBytes());
        assertEquals(Duration.ofSeconds(60), p.statusInterval());
        assertEquals(500, p.statusBytes());
        assertEquals(120, p.keepAliveSeconds());
    }

    @Test
    void timeScaleShortensIntervalsAndKeepalive() {
        TrafficProfile p = OptionsParser.parse(Scenario.SOAK,
                List.of("--devices", "1", "--time-scale", "10")).profile();
        assertEquals(1_500_000_000L, p.heartbeatNanos());
        assertEquals(12, p.keepAliveSeconds());
    }

    @Test
    void rejectsBackoffMaxBelowBase() {
        assertThrows(BadArgumentException.class, () -> OptionsParser.parse(Scenario.STORM,
                List.of("--devices", "1", "--backoff-base", "10s", "--backoff-max", "1s")));
    }

    @Test
    void rejectsMalformedAdminAddress() {
        assertThrows(BadArgumentException.class, () -> OptionsParser.parse(Scenario.CONNECT,
                List.of("--devices", "1", "--admin", "localhost")));
    }

    @Test
    void adminNoneMeansNoMetrics() {
        assertFalse(OptionsParser.parse(Scenario.CONNECT, List.of("--devices", "1", "--admin", "none"))
                .target().hasMetrics());
    }

    @Test
    void acceptsEqualsSyntaxAndKeepsGivenOptionsForWorkers() {
        BenchOptions o = OptionsParser.parse(Scenario.CONNECT, List.of("--devices=7", "--certs", "pool"));
        assertEquals(7, o.fleet().devices());
        assertEquals(CertMode.POOL, o.fleet().certMode());
        assertEquals("7", o.given().get("devices"));
    }
}
