package io.mqttgw.core.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FullJitterBackoffTest {
    static final long MS = 1_000_000;

    @Test
    void boundDoublesFromTheMinimumUpToTheMaximum() {
        FullJitterBackoff b = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(5));
        assertEquals(100 * MS, b.boundNanos(1));
        assertEquals(200 * MS, b.boundNanos(2));
        assertEquals(400 * MS, b.boundNanos(3));
        assertEquals(3200 * MS, b.boundNanos(6));
        assertEquals(5000 * MS, b.boundNanos(7));
        assertEquals(5000 * MS, b.boundNanos(1000), "no overflow on long outages");
    }

    @Test
    void delayIsDrawnUniformlyBelowTheBound() {
        FullJitterBackoff low = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(5), bound -> 0);
        FullJitterBackoff high = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(5), bound -> bound);
        assertEquals(0, low.delayNanos(3));
        assertEquals(400 * MS, high.delayNanos(3));
        FullJitterBackoff real = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(5));
        long sum = 0;
        for (int i = 0; i < 10_000; i++) {
            long d = real.delayNanos(4);
            assertTrue(d >= 0 && d <= 800 * MS, "delay " + d);
            sum += d;
        }
        long mean = sum / 10_000;
        assertTrue(mean > 350 * MS && mean < 450 * MS, "mean near half the bound: " + mean / MS + " ms");
    }

    @Test
    void refusesAMaximumBelowTheMinimum() {
        assertThrows(IllegalArgumentException.class,
                () -> new FullJitterBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new FullJitterBackoff(Duration.ZERO, Duration.ofSeconds(1)));
    }

    @Test
    void anAttemptBelowOneWaitsAsTheFirstRetry() {
        FullJitterBackoff b = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(5));
        assertEquals(100 * MS, b.boundNanos(0));
        assertEquals(100 * MS, b.boundNanos(-3));
    }

    @Test
    void spreadsDelaysOverTheWholeRangeFromZero() {
        FullJitterBackoff b = new FullJitterBackoff(Duration.ofMillis(100), Duration.ofSeconds(10));
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 10_000; i++) {
            long d = b.delayNanos(4);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertTrue(min < 80 * MS, "full jitter reaches near zero, min " + min);
        assertTrue(max > 720 * MS, "full jitter reaches near the bound, max " + max);
    }
}
