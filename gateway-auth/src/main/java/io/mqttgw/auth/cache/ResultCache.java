package io.mqttgw.auth.cache;

import io.mqttgw.core.spi.AuthResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Authentication answers by {@link DeviceKey}, each until its own expiry, at most about {@code maxEntries} of them.
 * Split into segments by key hash, each a small LRU map under its own lock, so event loops rarely meet on one lock
 * and the least recently used entry of a full segment makes room. Thread-safe.
 */
public final class ResultCache {
    private final Segment[] segments;
    private final int mask;
    private final LongSupplier nanoClock;
    private final AtomicLong count = new AtomicLong();

    /**
     * @param maxEntries bound on the entries kept; 0 keeps nothing
     * @param nanoClock  monotonic time in nanoseconds ({@code System::nanoTime} outside tests)
     */
    public ResultCache(int maxEntries, LongSupplier nanoClock) {
        int n = Integer.highestOneBit(Math.max(1, Math.min(64, maxEntries / 64)));
        this.segments = new Segment[n];
        this.mask = n - 1;
        this.nanoClock = nanoClock;
        int perSegment = maxEntries == 0 ? 0 : Math.max(1, (maxEntries + n - 1) / n);
        for (int i = 0; i < n; i++) {
            segments[i] = new Segment(perSegment);
        }
    }

    /** The answer remembered for {@code key}, or null when there is none or it has expired. */
    public AuthResult get(String key) {
        Segment s = segmentOf(key);
        long now = nanoClock.getAsLong();
        synchronized (s) {
            Entry e = s.get(key);
            if (e == null) {
                return null;
            }
            if (now - e.expiresAt >= 0) {
                s.remove(key);
                count.decrementAndGet();
                return null;
            }
            return e.result;
        }
    }

    /** Remembers {@code result} for {@code ttlNanos}; a ttl of 0 or less remembers nothing (and forgets the key). */
    public void put(String key, AuthResult result, long ttlNanos) {
        Segment s = segmentOf(key);
        synchronized (s) {
            if (ttlNanos <= 0 || s.capacity == 0) {
                if (s.remove(key) != null) {
                    count.decrementAndGet();
                }
                return;
            }
            if (s.put(key, new Entry(result, nanoClock.getAsLong() + ttlNanos)) == null) {
                count.incrementAndGet();
            }
        }
    }

    /** Entries held, expired ones not yet dropped included. */
    public long size() {
        return count.get();
    }

    private Segment segmentOf(String key) {
        int h = key.hashCode();
        return segments[(h ^ (h >>> 16)) & mask];
    }

    private record Entry(AuthResult result, long expiresAt) {
    }

    private final class Segment extends LinkedHashMap<String, Entry> {
        private static final long serialVersionUID = 1L;
        private final int capacity;

        Segment(int capacity) {
            super(16, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            if (size() > capacity) {
                count.decrementAndGet();
                return true;
            }
            return false;
        }
    }
}
