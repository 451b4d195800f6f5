package io.mqttgw.core.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.ValueParsers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdmissionBudgetTest {
    private static final Duration LAG = Duration.ofMillis(500);

    private static GatewayConfig.Admission auto(Duration cost) {
        return new GatewayConfig.Admission(ValueParsers.AUTO, ValueParsers.AUTO, cost, Duration.ofSeconds(1));
    }

    @Test
    void derivesBothLimitsFromTheIoThreadsAndTheHandshakeCost() {
        AdmissionBudget b = AdmissionBudget.derive(auto(Duration.ofMillis(2)), 2, LAG);
        assertEquals(750, b.connectionRate(), "2 threads x 0.75 / 2 ms");
        assertEquals(124, b.maxHandshakes(), "2 threads x 500 ms / (4 x 2 ms)");
        assertTrue(b.rateDerived() && b.budgetDerived());
    }

    @Test
    void admittedHandshakesOfOneLoopFitInAQuarterOfTheLagThreshold() {
        for (int threads : new int[] {1, 2, 16}) {
            for (long micros : new long[] {300, 1000, 2000, 5000}) {
                Duration cost = Duration.ofNanos(micros * 1000);
                AdmissionBudget b = AdmissionBudget.derive(auto(cost), threads, LAG);
                long perLoop = b.maxHandshakes() / threads;
                assertTrue(perLoop * cost.toNanos() <= LAG.toNanos() / 4, threads + " threads, " + micros + " us");
                // the rate is CPU time counted in full handshakes: a cheaper kind is refunded down to its own cost,
                // so the CPU admitted a second is rate x full cost at most, whatever the mix of kinds
                assertTrue(b.connectionRate() * cost.toNanos() <= threads * 1_000_000_000L,
                        "handshakes alone never take more than the I/O threads' time");
                assertTrue(b.knownDeviceShare() <= 1 && b.resumedShare() <= 1,
                        "no kind is charged more than a full handshake");
                assertTrue(b.knownDeviceShare() > 0 && b.resumedShare() > 0, "every kind is charged something");
            }
        }
    }

    @Test
    void scalesWithCoresAndCheaperHandshakes() {
        AdmissionBudget two = AdmissionBudget.derive(auto(Duration.ofMillis(2)), 2, LAG);
        AdmissionBudget sixteen = AdmissionBudget.derive(auto(Duration.ofMillis(2)), 16, LAG);
        AdmissionBudget cheap = AdmissionBudget.derive(auto(Duration.ofNanos(500_000)), 2, LAG);
        assertEquals(8 * two.maxHandshakes(), sixteen.maxHandshakes());
        assertEquals(8 * two.connectionRate(), sixteen.connectionRate());
        assertTrue(cheap.maxHandshakes() > two.maxHandshakes() && cheap.connectionRate() > two.connectionRate());
    }

    @Test
    void honoursExplicitValuesIncludingNoLimit() {
        AdmissionBudget b = AdmissionBudget.derive(new GatewayConfig.Admission(300, 0, Duration.ofMillis(2),
                Duration.ofSeconds(1)), 2, LAG);
        assertEquals(300, b.connectionRate());
        assertEquals(0, b.maxHandshakes());
        assertFalse(b.rateDerived() || b.budgetDerived());
        assertTrue(b.describe().startsWith("admission: connection-rate 300/s, max-handshakes unlimited"),
                b.describe());
    }

    @Test
    void usesTheDefaultLagWhenTheLagSignalIsOff() {
        assertEquals(AdmissionBudget.derive(auto(Duration.ofMillis(2)), 2, LAG).maxHandshakes(),
                AdmissionBudget.derive(auto(Duration.ofMillis(2)), 2, Duration.ZERO).maxHandshakes());
    }

    @Test
    void chargesCheaperKindsTheirShareOfAFullHandshake() {
        AdmissionBudget b = AdmissionBudget.derive(new GatewayConfig.Admission(ValueParsers.AUTO, ValueParsers.AUTO,
                Duration.ofMillis(2), Duration.ofSeconds(1), Duration.ofMillis(1), Duration.ofNanos(500_000)), 2, LAG);
        assertEquals(0.5, b.knownDeviceShare(), 1e-9);
        assertEquals(0.25, b.resumedShare(), 1e-9);
        assertTrue(b.describe().contains("a resumed session 0.25"), b.describe());
    }

    @Test
    void neverChargesACheaperKindMoreThanAFullHandshake() {
        AdmissionBudget b = AdmissionBudget.derive(new GatewayConfig.Admission(ValueParsers.AUTO, ValueParsers.AUTO,
                Duration.ofMillis(1), Duration.ofSeconds(1), Duration.ofMillis(3), Duration.ofMillis(2)), 2, LAG);
        assertEquals(1.0, b.knownDeviceShare());
        assertEquals(1.0, b.resumedShare());
    }

    @Test
    void neverDerivesLessThanOneHandshakePerLoop() {
        AdmissionBudget b = AdmissionBudget.derive(auto(Duration.ofSeconds(1)), 2, Duration.ofMillis(10));
        assertEquals(2, b.maxHandshakes());
        assertEquals(1, b.connectionRate());
    }
}
