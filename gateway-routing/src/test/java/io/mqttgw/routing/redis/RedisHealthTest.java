package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.retry.FullJitterBackoff;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class RedisHealthTest {
    private final RouteTableMetrics metrics = new RouteTableMetrics(new SimpleMeterRegistry(), () -> 0, () -> 0);
    private final RouteResync resync = new RouteResync(RedisRouteSettings.from(TestRouteStores.values(null)), "n1",
            new RouteKeys("mqttgw:"), null, null, metrics, null, null);
    private final RedisHealth health = new RedisHealth(
            new FullJitterBackoff(Duration.ofSeconds(10), Duration.ofSeconds(10)), metrics,
            new NodeLiveness(TimeUnit.SECONDS.toNanos(30)), resync, () -> 7);
    private final AtomicInteger healthy = new AtomicInteger();

    RedisHealthTest() {
        health.onHealthy(healthy::incrementAndGet);
    }

    @Test
    void aFailedJobBacksOffAndAnAnswerEndsTheBackoff() {
        health.failed("resync", new IOException("gone"));
        long now = System.nanoTime();
        assertNotEquals(RedisHealth.NONE, health.retryAtNanos());
        assertTrue(health.retryAtNanos() - now <= TimeUnit.SECONDS.toNanos(10));
        assertEquals("IOException: gone", health.lastError());
        assertNotEquals(0, health.failingSinceNanos());
        assertEquals(1, metrics.batchFailures.count());

        health.succeeded();
        assertTrue(health.mayTalk(System.nanoTime()));
        assertEquals(RedisHealth.NONE, health.retryAtNanos());
        assertEquals(0, health.failingSinceNanos());
        assertTrue(health.connected());
    }

    @Test
    void aFailedPipelineIsCountedButLeavesTheBackoffToItsShard() {
        health.noteFailure("pipeline", new IOException("gone"));
        assertTrue(health.mayTalk(System.nanoTime()));
        assertEquals(1, metrics.batchFailures.count());
        assertNotEquals(0, health.failingSinceNanos());
    }

    @Test
    void redisBackAfterFailingRestartsTheResyncAndTellsTheStore() {
        resync.start(new RouteEvents() {
            @Override
            public void takenOver(String clientId, long epoch) {
            }

            @Override
            public void forEachLiveRoute(Consumer<Route> action) {
            }
        });
        health.succeeded();
        assertFalse(resync.shouldStart());
        int before = healthy.get();

        health.failed("resync", new IOException("gone"));
        health.succeeded();
        assertTrue(resync.shouldStart());
        assertTrue(healthy.get() > before);
    }
}
