package io.mqttgw.auth.cache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * A map of at most about {@code maxEntries} values by string key, split into segments by key hash, each a small
 * access-ordered map under its own lock: event loops rarely meet on one lock, and the least recently used entry of a
 * full segment makes room. The one bounded map of the auth module (answers, deny records). Thread-safe.
 *
 * @param <V> the value; a mutable one may be changed only inside {@link #compute}, under its segment's lock
 */
public final class SegmentedLru<V> {
    private final Segment<V>[] segments;
    private final int mask;
    private final AtomicLong size = new AtomicLong();

    /** @param maxEntries bound on the entries kept; 0 keeps nothing */
    @SuppressWarnings("unchecked")
    public SegmentedLru(int maxEntries) {
        int n = Integer.highestOneBit(Math.max(1, Math.min(64, maxEntries / 64)));
        this.segments = new Segment[n];
        this.mask = n - 1;
        int perSegment = maxEntries == 0 ? 0 : Math.max(1, (maxEntries + n - 1) / n);
        for (int i = 0; i < n; i++) {
            segments[i] = new Segment<>(perSegment, size);
        }
    }

    /**
     * Replaces the value of {@code key} by what {@code update} makes of it (null in, when there is none; null out
     * removes it), all under the key's segment lock, and returns the new value. Counts as a use of the key.
     */
    public V compute(String key, UnaryOperator<V> update) {
        int h = key.hashCode();
        Segment<V> s = segments[(h ^ (h >>> 16)) & mask];
        synchronized (s) {
            V old = s.get(key);
            V now = update.apply(old);
            if (now == null) {
                if (old != null) {
                    s.remove(key);
                    size.decrementAndGet();
                }
            } else if (now != old && s.put(key, now) == null) {
                size.incrementAndGet();
            }
            return now;
        }
    }

    /** Entries held. */
    public long size() {
        return size.get();
    }

    private static final class Segment<V> extends LinkedHashMap<String, V> {
        private static final long serialVersionUID = 1L;
        private final int capacity;
        private final transient AtomicLong size;

        Segment(int capacity, AtomicLong size) {
            super(16, 0.75f, true);
            this.capacity = capacity;
            this.size = size;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
            if (size() > capacity) {
                size.decrementAndGet();
                return true;
            }
            return false;
        }
    }
}
