package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.BackoffPolicy;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Reconnect delay with exponential growth and full jitter: attempt {@code n} waits a uniformly random time in
 * {@code [0, min(max, base * 2^n))}, which spreads a storm of reconnects instead of synchronising them.
 * Immutable and thread-safe.
 */
public final class FullJitterBackoff {
    private final long baseNanos;
    private final long maxNanos;

    public FullJitterBackoff(BackoffPolicy policy) {
        this.baseNanos = Math.max(1, policy.base().toNanos());
        this.maxNanos = Math.max(baseNanos, policy.max().toNanos());
    }

    /** The ceiling of attempt {@code attempt} (0 for the first retry). */
    public long ceilingNanos(int attempt) {
        int shift = Math.min(Math.max(attempt, 0), 62);
        long ceiling = baseNanos << shift;
        return ceiling <= 0 || (ceiling >>> shift) != baseNanos ? maxNanos : Math.min(maxNanos, ceiling);
    }

    public long delayNanos(int attempt) {
        return ThreadLocalRandom.current().nextLong(ceilingNanos(attempt) + 1);
    }
}
