package io.mqttgw.auth.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ResultCacheTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private static final AuthResult ALLOW = AuthResult.ALLOWED;
    private static final AuthResult DENY = AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED);

    @Test
    void returnsAnAnswerUntilItsTtlEnds() {
        ResultCache cache = new ResultCache(100, now::get, Runnable::run);
        cache.put("a", ALLOW, TimeUnit.SECONDS.toNanos(60));
        cache.put("b", DENY, TimeUnit.SECONDS.toNanos(5));
        now.addAndGet(TimeUnit.SECONDS.toNanos(5) - 1);
        assertSame(ALLOW, cache.get("a"));
        assertSame(DENY, cache.get("b"));
        now.addAndGet(1);
        assertNull(cache.get("b"), "the deny expired at its own TTL");
        assertSame(ALLOW, cache.get("a"));
        now.addAndGet(TimeUnit.SECONDS.toNanos(55));
        assertNull(cache.get("a"));
        cache.cleanUp();
        assertEquals(0, cache.size(), "expired entries are dropped by the upkeep");
        assertEquals(2, cache.stats().evictionCount(), "an expiry counts as an eviction");
    }

    @Test
    void remembersNothingForAZeroTtlAndForgetsTheKey() {
        ResultCache cache = new ResultCache(100, now::get, Runnable::run);
        cache.put("a", ALLOW, 1_000_000);
        cache.put("a", DENY, 0);
        assertNull(cache.get("a"));
        assertEquals(0, cache.size());
    }

    @Test
    void keepsNothingWhenSizedZero() {
        ResultCache cache = new ResultCache(0, now::get, Runnable::run);
        cache.put("a", ALLOW, 1_000_000);
        assertNull(cache.get("a"));
    }

    @Test
    void staysWithinItsBoundKeepingKeysInUse() {
        ResultCache cache = new ResultCache(1000, now::get, Runnable::run);
        for (int i = 0; i < 5000; i++) {
            cache.put("device-" + i, ALLOW, 1_000_000_000L);
            cache.get("device-0");
        }
        cache.cleanUp();
        assertTrue(cache.size() <= 1000, "size " + cache.size());
        assertTrue(cache.size() >= 900, "size " + cache.size());
        assertSame(ALLOW, cache.get("device-0"), "a key in constant use stays");
        assertSame(ALLOW, cache.get("device-4999"), "the newest stays");
        assertNull(cache.get("device-1"), "an old key unused since went");
        assertTrue(cache.stats().evictionCount() >= 4000, "evictions " + cache.stats().evictionCount());
    }

    @Test
    void leavesEvictionToTheMaintenanceExecutorNotTheCaller() {
        Queue<Runnable> upkeep = new ConcurrentLinkedQueue<>();
        ResultCache cache = new ResultCache(10, now::get, upkeep::add);
        for (int i = 0; i < 100; i++) {
            cache.put("device-" + i, ALLOW, 1_000_000_000L);
        }
        assertFalse(upkeep.isEmpty(), "upkeep was handed to the executor");
        assertEquals(100, cache.size(), "the callers evicted nothing themselves");
        for (Runnable task = upkeep.poll(); task != null; task = upkeep.poll()) {
            task.run();
        }
        assertTrue(cache.size() <= 10, "size " + cache.size());
    }

    @Test
    void countsHitsAndMisses() {
        ResultCache cache = new ResultCache(100, now::get, Runnable::run);
        cache.put("a", ALLOW, 1_000_000);
        cache.get("a");
        cache.get("b");
        cache.get("a");
        assertEquals(2, cache.stats().hitCount());
        assertEquals(1, cache.stats().missCount());
    }

    @Test
    void keysDifferByEveryCredentialAndHideThePassword() {
        AuthRequest base = new AuthRequest("dev-1", "user", "secret".getBytes(StandardCharsets.UTF_8), "dev-1",
                null, null, "tls");
        String key = DeviceKey.of(base, "ab".repeat(32));
        assertEquals(key, DeviceKey.of(new AuthRequest("dev-1", "user", "secret".getBytes(StandardCharsets.UTF_8),
                "dev-1", null, null, "tls"), "ab".repeat(32)), "the same device and credentials share a key");
        assertNotEquals(key, DeviceKey.of(base, "cd".repeat(32)), "another certificate");
        assertNotEquals(key, DeviceKey.of(base, null), "no certificate");
        assertNotEquals(key, DeviceKey.of(new AuthRequest("dev-1", "user", "secreT".getBytes(StandardCharsets.UTF_8),
                "dev-1", null, null, "tls"), "ab".repeat(32)), "another password");
        assertNotEquals(key, DeviceKey.of(new AuthRequest("dev-1", "users", "ecret".getBytes(StandardCharsets.UTF_8),
                "dev-1", null, null, "tls"), "ab".repeat(32)), "the same bytes split differently");
        assertNotEquals(key, DeviceKey.of(new AuthRequest("dev-2", "user", "secret".getBytes(StandardCharsets.UTF_8),
                "dev-1", null, null, "tls"), "ab".repeat(32)), "another client id");
        assertNotEquals(key, DeviceKey.of(new AuthRequest("dev-1", "user", "secret".getBytes(StandardCharsets.UTF_8),
                "dev-1", null, null, "tcp"), "ab".repeat(32)), "another listener");
        assertTrue(!key.contains("secret") && !key.contains("user"), key);
    }
}
