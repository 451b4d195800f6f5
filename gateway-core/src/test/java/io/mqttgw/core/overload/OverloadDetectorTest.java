package io.mqttgw.core.overload;

import io.mqttgw.core.config.OverloadThreshold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverloadDetectorTest {
    private static final long SECOND = 1_000_000_000L;
    private final OverloadDetector detector = new OverloadDetector(List.of(
            new OverloadThreshold("lag", 0.5, 0.1),
            new OverloadThreshold("heap", 0.9, 0.75),
            new OverloadThreshold("off", 0, 0)), 5 * SECOND);

    @Test
    void entersAtTheEntryThresholdOfAnySignal() {
        assertFalse(detector.update(Map.of("lag", 0.49, "heap", 0.5), 0));
        assertTrue(detector.update(Map.of("lag", 0.2, "heap", 0.9), SECOND));
        assertTrue(detector.overloaded());
        assertEquals(List.of("heap"), detector.signalsOver());
    }

    @Test
    void staysOverloadedUntilEverySignalIsBelowItsExitThresholdForTheHoldTime() {
        detector.update(Map.of("lag", 0.6), 0);
        assertFalse(detector.update(Map.of("lag", 0.3), SECOND), "between exit and entry: still over");
        assertFalse(detector.update(Map.of("lag", 0.05), 2 * SECOND), "below exit, hold starts");
        assertFalse(detector.update(Map.of("lag", 0.05), 6 * SECOND));
        assertTrue(detector.update(Map.of("lag", 0.05), 7 * SECOND), "five seconds below exit: recovered");
        assertFalse(detector.overloaded());
    }

    @Test
    void restartsTheHoldWhenASignalComesBack() {
        detector.update(Map.of("lag", 0.6), 0);
        detector.update(Map.of("lag", 0.05), SECOND);
        detector.update(Map.of("lag", 0.7), 3 * SECOND);
        assertFalse(detector.update(Map.of("lag", 0.05), 4 * SECOND));
        assertFalse(detector.update(Map.of("lag", 0.05), 8 * SECOND), "the hold restarted at 4 s");
        assertTrue(detector.update(Map.of("lag", 0.05), 9 * SECOND));
    }

    @Test
    void ignoresSignalsThatAreOffOrNotSampled() {
        assertFalse(detector.update(Map.of("off", 1e9, "heap", Double.NaN), 0));
        assertFalse(detector.overloaded());
    }

    @Test
    void refusesAnExitThresholdAboveTheEntry() {
        assertThrows(IllegalArgumentException.class, () -> new OverloadThreshold("x", 0.5, 0.6));
    }

    @Test
    void leavesNoSoonerThanTheMinimumHoldAfterEntering() {
        OverloadDetector held = new OverloadDetector(List.of(new OverloadThreshold("lag", 0.5, 0.1)),
                0, 3 * SECOND);
        assertTrue(held.update(Map.of("lag", 0.6), 0));
        assertFalse(held.update(Map.of("lag", 0.0), SECOND), "back at once, but the level holds");
        assertFalse(held.update(Map.of("lag", 0.0), 2 * SECOND));
        assertTrue(held.update(Map.of("lag", 0.0), 3 * SECOND), "three seconds after entering");
        assertEquals(2, held.changes());
    }

    @Test
    void entersAgainNoSoonerThanTheMinimumHoldAfterLeaving() {
        OverloadDetector held = new OverloadDetector(List.of(new OverloadThreshold("lag", 0.5, 0.1)),
                0, 3 * SECOND);
        held.update(Map.of("lag", 0.6), 0);
        held.update(Map.of("lag", 0.0), 3 * SECOND);
        assertFalse(held.update(Map.of("lag", 0.9), 4 * SECOND), "over again, but the level holds");
        assertFalse(held.overloaded());
        assertTrue(held.update(Map.of("lag", 0.9), 6 * SECOND));
        assertEquals(3, held.changes());
    }

    @Test
    void aSignalSwingingEverySampleChangesTheLevelAtMostOncePerMinimumHold() {
        OverloadDetector held = new OverloadDetector(List.of(new OverloadThreshold("lag", 0.5, 0.1)),
                0, 2 * SECOND);
        long step = SECOND / 4;
        for (int i = 0; i < 80; i++) {
            held.update(Map.of("lag", i % 2 == 0 ? 0.9 : 0.0), i * step);
        }
        assertTrue(held.changes() <= 10, "20 s of flapping input, at most one change per 2 s: " + held.changes());
    }

    @Test
    void countsEveryChange() {
        assertEquals(0, detector.changes());
        detector.update(Map.of("lag", 0.6), 0);
        detector.update(Map.of("lag", 0.05), SECOND);
        detector.update(Map.of("lag", 0.05), 7 * SECOND);
        assertEquals(2, detector.changes());
    }

    @Test
    void aRetunedThresholdDecidesTheNextSampleAndUnknownSignalsAreIgnored() {
        assertFalse(detector.update(Map.of("heap", 0.8), 0));
        detector.retune(List.of(new OverloadThreshold("heap", 0.7, 0.6),
                new OverloadThreshold("not-watched", 0.1, 0.05)));
        assertTrue(detector.update(Map.of("heap", 0.8, "not-watched", 1.0), SECOND));
        assertEquals(List.of("heap"), detector.signalsOver());
    }
}
