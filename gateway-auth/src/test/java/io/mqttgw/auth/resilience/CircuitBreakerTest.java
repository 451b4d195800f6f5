package io.mqttgw.auth.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.auth.resilience.CircuitBreaker.State;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
    private final AtomicLong now = new AtomicLong(42);
    private final CircuitBreaker breaker = new CircuitBreaker(3, 1000, now::get);

    private void fail(int times) {
        for (int i = 0; i < times; i++) {
            assertTrue(breaker.tryAcquire());
            breaker.onFailure();
        }
    }

    @Test
    void opensAfterTheThresholdOfConsecutiveFailures() {
        fail(2);
        assertEquals(State.CLOSED, breaker.state());
        fail(1);
        assertEquals(State.OPEN, breaker.state());
        assertFalse(breaker.tryAcquire(), "open: no calls");
        assertEquals(1, breaker.timesOpened());
    }

    @Test
    void aSuccessResetsTheCountOfFailures() {
        fail(2);
        breaker.onSuccess();
        fail(2);
        assertEquals(State.CLOSED, breaker.state());
    }

    @Test
    void admitsOneProbePerOpenPeriodAndClosesWhenItSucceeds() {
        fail(3);
        now.addAndGet(999);
        assertFalse(breaker.tryAcquire());
        now.addAndGet(1);
        assertTrue(breaker.tryAcquire(), "the period is over: one probe");
        assertEquals(State.HALF_OPEN, breaker.state());
        assertFalse(breaker.tryAcquire(), "only one probe");
        breaker.onSuccess();
        assertEquals(State.CLOSED, breaker.state());
        assertTrue(breaker.tryAcquire());
    }

    @Test
    void aFailedProbeKeepsItOpenForAnotherPeriod() {
        fail(3);
        now.addAndGet(1000);
        assertTrue(breaker.tryAcquire());
        now.addAndGet(10);
        breaker.onFailure();
        assertEquals(State.OPEN, breaker.state());
        now.addAndGet(999);
        assertFalse(breaker.tryAcquire());
        now.addAndGet(1);
        assertTrue(breaker.tryAcquire());
    }

    @Test
    void aProbeThatNeverReportsDoesNotWedgeIt() {
        fail(3);
        now.addAndGet(1000);
        assertTrue(breaker.tryAcquire());
        now.addAndGet(1000);
        assertTrue(breaker.tryAcquire(), "another probe one period later");
    }
}
