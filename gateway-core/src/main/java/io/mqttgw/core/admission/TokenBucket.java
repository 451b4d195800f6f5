package io.mqttgw.core.admission;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A lock-free token bucket: {@code ratePerSecond} tokens a second, at most {@code burst} saved up. The state is one
 * long (the time at which the bucket would be empty), advanced by compare-and-set, so every event loop can take
 * from it without a lock. A taker may take a fraction of a token, and give part of what it took back
 * ({@link #refund}) once it knows its work was cheaper than it was charged for; a refund never raises the bucket
 * above its burst. Thread-safe.
 */
// Kept hand-written: one CAS on one long per take, fractional takes, refunds: no library limiter does all.
public final class TokenBucket {
    private final long nanosPerToken;
    private final long burstNanos;
    private final LongSupplier clock;
    /** When the bucket is empty: a token is available if this is not after now. */
    private final AtomicLong emptyAt;

    public TokenBucket(int ratePerSecond, int burst, LongSupplier nanoClock) {
        if (ratePerSecond <= 0 || burst <= 0) {
            throw new IllegalArgumentException("rate and burst must be positive");
        }
        this.nanosPerToken = 1_000_000_000L / ratePerSecond;
        this.burstNanos = nanosPerToken * burst;
        this.clock = nanoClock;
        this.emptyAt = new AtomicLong(nanoClock.getAsLong() - burstNanos);
    }

    public boolean tryAcquire() {
        return take(nanosPerToken);
    }

    /** Takes {@code tokens} (a fraction or several) if the bucket holds them; nothing otherwise. */
    public boolean tryAcquire(double tokens) {
        return take(nanosOf(tokens));
    }

    /**
     * Gives back {@code tokens} taken earlier. A bucket that has refilled in the meantime keeps at most its burst: the
     * next take clamps an {@code emptyAt} that lies more than a burst in the past.
     */
    public void refund(double tokens) {
        long nanos = nanosOf(tokens);
        if (nanos > 0) {
            emptyAt.addAndGet(-nanos);
        }
    }

    /** Tokens available now (at most the burst). */
    public double available() {
        long now = clock.getAsLong();
        long saved = Math.min(burstNanos, Math.max(0, now - emptyAt.get()));
        return (double) saved / nanosPerToken;
    }

    private long nanosOf(double tokens) {
        return Math.round(tokens * nanosPerToken);
    }

    private boolean take(long cost) {
        while (true) {
            long now = clock.getAsLong();
            long current = emptyAt.get();
            // an idle bucket holds at most a burst
            long base = Math.max(current, now - burstNanos);
            long next = base + cost;
            if (next - now > 0) {
                return false;
            }
            if (emptyAt.compareAndSet(current, next)) {
                return true;
            }
        }
    }
}
