package io.mqttgw.auth.resilience;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Opens after {@code failureThreshold} consecutive failed calls; while open it refuses calls, except one probe
 * every {@code openDuration}. A successful call closes it; a failed probe keeps it open for another period. A probe
 * whose result is never reported does not wedge it: the next period admits another. Thread-safe, lock-free.
 */
public final class CircuitBreaker {
    /** What {@link #state()} reports; the ordinal is the value of the state gauge. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private final int failureThreshold;
    private final long openNanos;
    private final LongSupplier nanoClock;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong nextProbeAt = new AtomicLong();
    private final AtomicLong opened = new AtomicLong();
    private volatile boolean open;
    private volatile boolean probing;

    public CircuitBreaker(int failureThreshold, long openNanos, LongSupplier nanoClock) {
        this.failureThreshold = failureThreshold;
        this.openNanos = openNanos;
        this.nanoClock = nanoClock;
    }

    /** Whether a call may be made now; while open, true only for the one probe of this period. */
    public boolean tryAcquire() {
        if (!open) {
            return true;
        }
        long now = nanoClock.getAsLong();
        long at = nextProbeAt.get();
        if (now - at >= 0 && nextProbeAt.compareAndSet(at, now + openNanos)) {
            probing = true;
            return true;
        }
        return false;
    }

    public void onSuccess() {
        consecutiveFailures.set(0);
        if (open) {
            open = false;
            probing = false;
        }
    }

    public void onFailure() {
        long now = nanoClock.getAsLong();
        if (open) {
            probing = false;
            nextProbeAt.set(now + openNanos);
        } else if (consecutiveFailures.incrementAndGet() >= failureThreshold) {
            nextProbeAt.set(now + openNanos);
            open = true;
            opened.incrementAndGet();
        }
    }

    public State state() {
        return !open ? State.CLOSED : probing ? State.HALF_OPEN : State.OPEN;
    }

    public int consecutiveFailures() {
        return consecutiveFailures.get();
    }

    /** How many times it has opened. */
    public long timesOpened() {
        return opened.get();
    }
}
