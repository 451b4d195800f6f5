package io.mqttgw.core.metrics;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The process's open file count behind the {@code process.files.open} gauge, counted at most once per refresh
 * interval and otherwise answered from the last count.
 *
 * <p>Why: the JDK counts open files by listing {@code /proc/self/fd}, which costs CPU in proportion to the open
 * files, and nearly every open file of this process is a device connection: 3-5 ms of CPU per count at 9,000 open
 * files, 14 ms at 18,000 (it grows faster than the count), so a second or more at a million, on every scrape (a
 * profiled reconnect storm whose driver read {@code /metrics} five times a second spent 12 % of the gateway's CPU
 * there; docs/benchmarks/history.md). A file-limit alert does not need a fresher figure than the refresh interval.
 *
 * <p>Threading: any thread; overlapping scrapes may both count once the value is stale, which is harmless.
 */
final class OpenFileCount {
    /** How old the count may get: well inside the minutes a file-limit alert waits, above a 15 s scrape interval. */
    static final Duration REFRESH = Duration.ofSeconds(30);

    private final LongSupplier counter;
    private final LongSupplier nanoClock;
    private final long refreshNanos;
    private volatile long value;
    private volatile long countedAt;
    private volatile boolean counted;

    OpenFileCount(LongSupplier counter, LongSupplier nanoClock, Duration refresh) {
        this.counter = counter;
        this.nanoClock = nanoClock;
        this.refreshNanos = refresh.toNanos();
    }

    /** The open files as of at most the refresh interval ago; negative when the platform cannot count them. */
    double value() {
        long now = nanoClock.getAsLong();
        if (!counted || now - countedAt >= refreshNanos) {
            value = counter.getAsLong();
            countedAt = now;
            counted = true;
        }
        return value;
    }
}
