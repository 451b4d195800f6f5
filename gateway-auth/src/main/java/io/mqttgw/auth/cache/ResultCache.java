package io.mqttgw.auth.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.mqttgw.core.spi.AuthResult;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Authentication answers by {@link DeviceKey}, each until its own expiry (an allow and a deny each with the TTL
 * they were put with), at most {@code maxEntries} of them: a Caffeine cache, which evicts beyond the bound the
 * entries least likely to be asked again (frequency and recency) and keeps hit, miss and eviction statistics. A
 * lookup or a put only records what happened; the cache's upkeep (eviction, dropping expired entries) runs on the
 * {@code maintenance} executor, never on the calling event loop. Thread-safe.
 */
public final class ResultCache {
    private final Cache<String, Entry> entries;
    private final boolean keeps;

    /**
     * @param maxEntries  bound on the entries kept; 0 keeps nothing
     * @param nanoClock   monotonic time in nanoseconds ({@code System::nanoTime} outside tests)
     * @param maintenance where the cache's upkeep runs ({@link CacheMaintenance#executor()} outside tests)
     */
    public ResultCache(int maxEntries, LongSupplier nanoClock, Executor maintenance) {
        this.keeps = maxEntries > 0;
        this.entries = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .expireAfter(new PerEntryTtl())
                .ticker(nanoClock::getAsLong)
                .executor(maintenance)
                .recordStats()
                .build();
    }

    /** The answer remembered for {@code key}, or null when there is none or it has expired. */
    public AuthResult get(String key) {
        Entry e = entries.getIfPresent(key);
        return e == null ? null : e.result;
    }

    /** Remembers {@code result} for {@code ttlNanos}; a ttl of 0 or less remembers nothing (and forgets the key). */
    public void put(String key, AuthResult result, long ttlNanos) {
        if (ttlNanos <= 0 || !keeps) {
            entries.invalidate(key);
        } else {
            entries.put(key, new Entry(result, ttlNanos));
        }
    }

    /** Entries held, expired ones the upkeep has not yet dropped included. */
    public long size() {
        return entries.estimatedSize();
    }

    /** Hits, misses and evictions (size bound or expiry) since the start. */
    public CacheStats stats() {
        return entries.stats();
    }

    /** Runs the pending upkeep on the calling thread now; for tests. */
    void cleanUp() {
        entries.cleanUp();
    }

    private record Entry(AuthResult result, long ttlNanos) {
    }

    /** Each entry lives for the TTL it was put with; reading it does not extend it. */
    private static final class PerEntryTtl implements Expiry<String, Entry> {
        @Override
        public long expireAfterCreate(String key, Entry value, long currentTime) {
            return value.ttlNanos;
        }

        @Override
        public long expireAfterUpdate(String key, Entry value, long currentTime, long currentDuration) {
            return value.ttlNanos;
        }

        @Override
        public long expireAfterRead(String key, Entry value, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
