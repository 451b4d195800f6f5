package io.mqttgw.core.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;

/**
 * Retry delays with full jitter: retry {@code n} (from 1) waits a uniformly random time in
 * {@code [0, min(max, min * 2^(n-1))]}, so parties that failed together (gateway nodes that lost Redis, bench
 * devices a storm dropped) do not come back in step. The one backoff of the project: the Redis route table's
 * reconnects and retries, and the bench's device reconnects. Immutable and thread-safe.
 */
public final class FullJitterBackoff {
    private final long minNanos;
    private final long maxNanos;
    /** Given a bound, a random value in {@code [0, bound]}. */
    private final LongUnaryOperator random;

    public FullJitterBackoff(Duration min, Duration max) {
        this(min, max, bound -> ThreadLocalRandom.current().nextLong(bound + 1));
    }

    FullJitterBackoff(Duration min, Duration max, LongUnaryOperator random) {
        if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("need 0 < min <= max: " + min + ", " + max);
        }
        this.minNanos = min.toNanos();
        this.maxNanos = max.toNanos();
        this.random = random;
    }

    /** The upper bound of the delay before retry {@code attempt} (1 for the first retry). */
    public long boundNanos(int attempt) {
        int shift = Math.max(0, Math.min(attempt - 1, 62));
        long bound = minNanos << shift;
        if (bound >>> shift != minNanos || bound < 0) {
            return maxNanos;
        }
        return Math.min(bound, maxNanos);
    }

    /** A random delay in {@code [0, boundNanos(attempt)]}. */
    public long delayNanos(int attempt) {
        return random.applyAsLong(boundNanos(attempt));
    }
}
