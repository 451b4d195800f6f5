package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.BackoffPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FullJitterBackoffTest {
    private final FullJitterBackoff backoff = new FullJitterBackoff(
            new BackoffPolicy(Duration.ofMillis(100), Duration.ofSeconds(10)));

    @Test
    void ceilingDoublesPerAttemptUpToTheMaximum() {
        assertEquals(100_000_000L, backoff.ceilingNanos(0));
        assertEquals(200_000_000L, backoff.ceilingNanos(1));
        assertEquals(6_400_000_000L, backoff.ceilingNanos(6));
        assertEquals(10_000_000_000L, backoff.ceilingNanos(7));
    }

    @Test
    void hugeAttemptNumbersDoNotOverflow() {
        assertEquals(10_000_000_000L, backoff.ceilingNanos(1_000));
        assertEquals(10_000_000_000L, backoff.ceilingNanos(63));
    }

    @Test
    void delaysAreSpreadOverTheWholeRangeFromZero() {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 10_000; i++) {
            long d = backoff.delayNanos(3);
            assertTrue(d >= 0 && d <= 800_000_000L, "delay " + d);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertTrue(min < 80_000_000L, "full jitter reaches near zero, min " + min);
        assertTrue(max > 720_000_000L, "full jitter reaches near the ceiling, max " + max);
    }
}
