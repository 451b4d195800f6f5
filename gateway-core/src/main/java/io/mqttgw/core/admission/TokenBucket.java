package io.mqttgw.core.admission;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A lock-free token bucket: {@code ratePerSecond} tokens a second, at most {@code burst} saved up. The state is one
 * long (the time at which the bucket would be empty), advanced by compare-and-set, so every event loop can take
 * from it without a lock. Thread-safe.
 */
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
        while (true) {
            long now = clock.getAsLong();
            long current = emptyAt.get();
            // an idle bucket holds at most a burst
            long base = Math.max(current, now - burstNanos);
            long next = base + nanosPerToken;
            if (next - now > 0) {
                return false;
            }
            if (emptyAt.compareAndSet(current, next)) {
                return true;
            }
        }
    }
}
