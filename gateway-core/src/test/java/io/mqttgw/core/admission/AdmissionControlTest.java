package io.mqttgw.core.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.ValueParsers;
import io.mqttgw.core.tls.HandshakeKind;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AdmissionControlTest {
    private static final long FULL_NANOS = 2_000_000;
    private static final long RESUMED_NANOS = 500_000;
    private static final long KNOWN_NANOS = 1_000_000;
    private static final int THREADS = 2;

    private final AtomicLong now = new AtomicLong(5_000_000_000_000L);
    private final MeterRegistry meters = new SimpleMeterRegistry();

    /** 2 I/O threads, 2 ms full handshakes: 750 a second (auto), no in-flight limit so only the rate counts. */
    private AdmissionControl control() {
        AdmissionBudget budget = AdmissionBudget.derive(new GatewayConfig.Admission(ValueParsers.AUTO, 0,
                Duration.ofNanos(FULL_NANOS), Duration.ofSeconds(1), Duration.ofNanos(KNOWN_NANOS),
                Duration.ofNanos(RESUMED_NANOS)), THREADS, Duration.ofMillis(500));
        assertEquals(750, budget.connectionRate());
        return new AdmissionControl(budget, meters, now::get);
    }

    /**
     * A storm for {@code seconds}: every millisecond, connections are admitted while the bucket allows, and each
     * handshake admitted completes as {@code kind} one millisecond later. Returns the connections admitted after the
     * first second (the burst saved while idle spent).
     */
    private long storm(AdmissionControl control, HandshakeKind kind, int seconds) {
        long admittedAfterBurst = 0;
        int completing = 0;
        for (int ms = 0; ms < seconds * 1000; ms++) {
            now.addAndGet(1_000_000);
            for (int i = 0; i < completing; i++) {
                control.handshakeCompleted(kind);
                control.handshakeEnded();
            }
            completing = 0;
            while (control.admit(true) == null) {
                completing++;
                if (ms >= 1000) {
                    admittedAfterBurst++;
                }
            }
        }
        return admittedAfterBurst;
    }

    @Test
    void aStormOfResumedReconnectsComesInAtTheirOwnCostNotAtAFullHandshakes() {
        long full = storm(control(), HandshakeKind.FULL, 4);
        AdmissionControl resumedControl = new AdmissionControl(AdmissionBudget.derive(new GatewayConfig.Admission(
                ValueParsers.AUTO, 0, Duration.ofNanos(FULL_NANOS), Duration.ofSeconds(1),
                Duration.ofNanos(KNOWN_NANOS), Duration.ofNanos(RESUMED_NANOS)), THREADS, Duration.ofMillis(500)),
                new SimpleMeterRegistry(), now::get);
        long resumed = storm(resumedControl, HandshakeKind.RESUMED, 4);
        // 3 s after the burst: 750 full handshakes a second, or 4 x as many resumed ones (0.5 ms instead of 2 ms)
        assertEquals(3 * 750, full, 3);
        assertEquals(4 * 3 * 750, resumed, 12);
    }

    @Test
    void theCpuTimeAdmittedASecondFitsTheIoThreadsWhateverTheKind() {
        for (HandshakeKind kind : HandshakeKind.values()) {
            AdmissionControl control = new AdmissionControl(AdmissionBudget.derive(new GatewayConfig.Admission(
                    ValueParsers.AUTO, 0, Duration.ofNanos(FULL_NANOS), Duration.ofSeconds(1),
                    Duration.ofNanos(KNOWN_NANOS), Duration.ofNanos(RESUMED_NANOS)), THREADS, Duration.ofMillis(500)),
                    new SimpleMeterRegistry(), now::get);
            long admitted = storm(control, kind, 5);
            long cost = switch (kind) {
                case FULL -> FULL_NANOS;
                case KNOWN_DEVICE -> KNOWN_NANOS;
                case RESUMED -> RESUMED_NANOS;
            };
            double cpuPerSecond = admitted * (double) cost / 4;
            assertTrue(cpuPerSecond <= THREADS * AdmissionBudget.CPU_SHARE * 1e9 * 1.01,
                    kind + ": " + cpuPerSecond + " ns of handshakes a second on " + THREADS + " threads");
            assertTrue(cpuPerSecond >= THREADS * AdmissionBudget.CPU_SHARE * 1e9 * 0.98,
                    kind + ": the budget is used, not left idle");
        }
    }

    @Test
    void aFailedHandshakeGetsNothingBack() {
        AdmissionControl control = control();
        int admitted = 0;
        while (control.admit(true) == null) {
            admitted++;
        }
        assertEquals(750, admitted, "a second's burst");
        control.handshakeEnded();
        assertEquals(AdmissionControl.Rejection.RATE, control.admit(true), "the slot is back, the CPU time is not");
    }

    @Test
    void countsHandshakesByKindAndTheTokensChargedAndGivenBack() {
        AdmissionControl control = control();
        for (int i = 0; i < 4; i++) {
            assertNull(control.admit(true));
        }
        control.handshakeCompleted(HandshakeKind.FULL);
        control.handshakeCompleted(HandshakeKind.KNOWN_DEVICE);
        control.handshakeCompleted(HandshakeKind.RESUMED);
        control.handshakeCompleted(HandshakeKind.RESUMED);
        assertEquals(2.0, control.handshakesCompleted(HandshakeKind.RESUMED));
        assertEquals(1.0, meters.get("mqttgw.admission.handshakes").tag("kind", "known-device").counter().count());
        assertEquals(4.0, meters.get("mqttgw.admission.charged").counter().count());
        assertEquals(0.5 + 0.75 + 0.75, meters.get("mqttgw.admission.refunded").counter().count(), 1e-9);
        assertEquals(750 - 4 + 2.0, meters.get("mqttgw.admission.tokens").gauge().value(), 1e-6);
    }

    @Test
    void withoutCostSharesEveryConnectionStaysAFullHandshake() {
        AdmissionControl control = new AdmissionControl(new AdmissionBudget(10, 0, false, false, 1, 1), meters,
                now::get);
        for (int i = 0; i < 10; i++) {
            assertNull(control.admit(true));
            control.handshakeCompleted(HandshakeKind.RESUMED);
        }
        assertEquals(AdmissionControl.Rejection.RATE, control.admit(true));
    }

    @Test
    void aRetunedBudgetBoundsTheNextAdmissionsAndLiftsALimit() {
        AdmissionControl control = new AdmissionControl(new AdmissionBudget(0, 2, false, false, 1, 1),
                new SimpleMeterRegistry(), now::get);
        assertNull(control.admit(true));
        assertNull(control.admit(true));
        assertEquals(AdmissionControl.Rejection.HANDSHAKES, control.admit(true));
        control.retune(new AdmissionBudget(0, 3, false, false, 1, 1));
        assertNull(control.admit(true), "the reloaded bound admits one more");
        assertEquals(AdmissionControl.Rejection.HANDSHAKES, control.admit(true));
        control.retune(new AdmissionBudget(1, 0, false, false, 1, 1));
        assertNull(control.admit(true), "no handshake bound now; a rate of 1 a second");
        assertEquals(AdmissionControl.Rejection.RATE, control.admit(true));
    }
}
