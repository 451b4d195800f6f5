package io.mqttgw.auth.cache;

import io.mqttgw.core.spi.AuthResult;
import java.util.function.LongSupplier;

/**
 * Authentication answers by {@link DeviceKey}, each until its own expiry, at most about {@code maxEntries} of them.
 * Split into segments by key hash, each a small LRU map under its own lock, so event loops rarely meet on one lock
 * and the least recently used entry of a full segment makes room. Thread-safe.
 */
public final class ResultCache {
    private final SegmentedLru<Entry> entries;
    private final LongSupplier nanoClock;

    /**
     * @param maxEntries bound on the entries kept; 0 keeps nothing
     * @param nanoClock  monotonic time in nanoseconds ({@code System::nanoTime} outside tests)
     */
    public ResultCache(int maxEntries, LongSupplier nanoClock) {
        this.entries = new SegmentedLru<>(maxEntries);
        this.nanoClock = nanoClock;
    }

    /** The answer remembered for {@code key}, or null when there is none or it has expired. */
    public AuthResult get(String key) {
        long now = nanoClock.getAsLong();
        Entry e = entries.compute(key, old -> old == null || now - old.expiresAt >= 0 ? null : old);
        return e == null ? null : e.result;
    }

    /** Remembers {@code result} for {@code ttlNanos}; a ttl of 0 or less remembers nothing (and forgets the key). */
    public void put(String key, AuthResult result, long ttlNanos) {
        Entry entry = ttlNanos <= 0 ? null : new Entry(result, nanoClock.getAsLong() + ttlNanos);
        entries.compute(key, old -> entry);
    }

    /** Entries held, expired ones not yet dropped included. */
    public long size() {
        return entries.size();
    }

    private record Entry(AuthResult result, long expiresAt) {
    }
}
