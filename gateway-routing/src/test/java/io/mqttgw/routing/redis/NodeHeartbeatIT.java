package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/** The heartbeat key against a real redis-server while the route flusher cannot get its backlog into Redis. */
class NodeHeartbeatIT extends RedisServerTests {
    @Test
    void heartbeatKeyStaysAliveWhileTheFlusherRetriesABacklogItCannotStore() throws Exception {
        // a route key of the wrong type makes every pipeline that writes it fail, so the flusher holds a backlog and
        // backs off for as long as the key stays: the case where a heartbeat behind the flusher would starve
        check.getBucket("mqttgw:route:{poison}", StringCodec.INSTANCE).set("not a hash");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis,
                "routes.redis.heartbeat-interval", "100ms", "routes.redis.node-ttl", "1s"), "hb-node", meters);
        String alive = "mqttgw:node:{hb-node}:alive";
        try {
            store.start(new FakeNode());
            store.put(new Route("poison", "hb-node", 1, System.currentTimeMillis(), "test"));
            await("the flusher fails on the backlog",
                    () -> meters.get("mqttgw.routes.redis.batch.failures").counter().count() >= 2, 15);
            await("heartbeat key written", () -> check.getKeys().countExists(alive) == 1, 15);
            // four times the key's time to live, with the backlog still there
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() - end < 0) {
                assertTrue(check.getKeys().countExists(alive) == 1, "the heartbeat key expired during the backlog");
                Thread.sleep(50);
            }
            assertTrue(meters.get("mqttgw.routes.redis.batch.failures").counter().count() >= 3,
                    "the backlog lasted the whole time");
            assertTrue(meters.get("mqttgw.routes.redis.heartbeats").tag("result", "ok").counter().count() >= 10);
        } finally {
            check.getKeys().delete("mqttgw:route:{poison}");
            store.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
