package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.session.RedisSessionStore;
import io.mqttgw.routing.testkit.RedisSentinelTopology;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The route store and the session store on a real Redis Sentinel (1 master, 1 replica, 3 sentinels): found through
 * the sentinels, and after the master is killed, writing and deleting on the promoted replica.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelIT {
    @TempDir
    static Path dir;
    static RedisSentinelTopology sentinel;
    static RedissonClient check;

    final List<RedisRouteStore> stores = new ArrayList<>();
    final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);

    @BeforeAll
    static void startSentinel() {
        sentinel = RedisSentinelTopology.start(dir.resolve("sentinel"));
        check = TestRouteStores.checker(TestRouteStores.settings(sentinel));
    }

    @AfterAll
    static void stopSentinel() {
        if (check != null) {
            check.shutdown();
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @AfterEach
    void closeStores() throws Exception {
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    RedisRouteStore start(String node, FakeNode events, String... overrides) {
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(sentinel, overrides), node,
                TestRouteStores.meters());
        stores.add(store);
        store.start(events);
        return store;
    }

    /** The checking client may read the replica, a moment behind the master: the tests await what they check. */
    static Map<String, String> hgetall(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    static void join(CompletionStage<?> stage) throws Exception {
        stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    @Order(1)
    void routesAreWrittenAndDeletedThroughTheSentinelsMaster() throws Exception {
        FakeNode a = new FakeNode();
        RedisRouteStore store = start("node-a", a);
        List<Route> routes = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Route r = new Route("s-dev-" + i, "node-a", epochs.incrementAndGet(), System.currentTimeMillis(),
                    "127.0.0.1:40000");
            routes.add(r);
            a.live.put(r.clientId(), r);
            writes.add(store.put(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        await("every route readable", () -> routes.stream().allMatch(r ->
                Long.toString(r.epoch()).equals(hgetall(r.clientId()).get("epoch"))), 20);
        List<CompletableFuture<Void>> deletes = new ArrayList<>();
        for (Route r : routes) {
            a.live.remove(r.clientId(), r);
            deletes.add(store.remove(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)));
        await("every route gone", () -> routes.stream().allMatch(r -> hgetall(r.clientId()).isEmpty()), 20);
    }

    @Test
    @Order(2)
    void persistentSessionsGetTheirExpiryWhenTheDeviceLeaves() throws Exception {
        RedissonClient client = Redisson.create(TestRouteStores.settings(sentinel).redissonConfig("test-sessions"));
        RedisSessionStore sessions = new RedisSessionStore(client, "mqttgw", Duration.ofMinutes(10), 10, 10, true,
                "node-a", 1000);
        try {
            for (int i = 0; i < 20; i++) {
                join(sessions.open("p-dev-" + i, false, 0x7fffffff, 100 + i));
                join(sessions.disconnected("p-dev-" + i, 100 + i, 600_000));
            }
            await("every session expires", () -> {
                for (int i = 0; i < 20; i++) {
                    long ttl = check.getBucket("mqttgw:session:{p-dev-" + i + "}").remainTimeToLive();
                    if (ttl <= 0 || ttl > 600_000) {
                        return false;
                    }
                }
                return true;
            }, 20);
        } finally {
            sessions.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Under a steady load of writes and deletes the master is killed; the sentinels promote the replica, the store
     * follows them and every device ends with its last route on the new master.
     */
    @Test
    @Order(10)
    void routeWritesAndDeletesResumeOnThePromotedReplica() throws Exception {
        FakeNode events = new FakeNode();
        RedisRouteStore store = start("node-f", events, "routes.redis.timeout", "3s");
        List<String> devices = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            devices.add("f-dev-" + i);
        }
        RedisTestServer killed = null;
        long failoverMillis;
        RouteLoad load = new RouteLoad(store, events, "node-f", devices, Set.copyOf(devices), epochs);
        try {
            Thread.sleep(2000);
            System.out.printf(Locale.ROOT,
                    "RedisSentinelIT: before the kill the slowest route operation took %d ms%n",
                    load.reset());
            long killedAt = System.nanoTime();
            killed = sentinel.killMasterAndAwaitFailover(40);
            failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            Thread.sleep(6000);
        } finally {
            load.close();
            if (killed != null) {
                // comes back as the new master's replica, as the sentinels reconfigure it
                killed.start();
            }
        }
        join(load.allDone());
        await("every device's last route on the new master", () -> load.last().entrySet().stream().allMatch(e ->
                Long.toString(e.getValue().epoch()).equals(hgetall(e.getKey()).get("epoch"))), 30);
        System.out.printf(Locale.ROOT,
                "RedisSentinelIT: failover took %d ms; route operations from the kill on: %d in all, "
                + "slowest %d ms, %d over 500 ms%n", failoverMillis, load.ops(), load.maxMillis(), load.slow());
        assertTrue(load.ops() > 0);
        assertEquals(40, load.last().size());
    }
}
