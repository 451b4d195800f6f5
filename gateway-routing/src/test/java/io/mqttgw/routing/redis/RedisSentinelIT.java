package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static io.mqttgw.routing.testkit.TestRouteStores.join;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.session.RedisSessionStore;
import io.mqttgw.routing.testkit.RedisSentinelTopology;
import io.mqttgw.routing.testkit.RedisTopologyExtension;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The route store and the session store on a real Redis Sentinel (1 master, 1 replica, 3 sentinels): found through
 * the sentinels, and after the master is killed, writing and deleting on the promoted replica; a session store
 * closed while the master fails over ends in time and leaves every session with its expiry. The tests from order 10
 * on fail the master over once each on the one topology: the killed master comes back as the new master's replica
 * ({@link RedisSentinelTopology#restart}), the one the next test's failover promotes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelIT {
    @RegisterExtension
    static final RedisTopologyExtension<RedisSentinelTopology> REDIS = RedisTopologyExtension.sentinel();

    static RedisSentinelTopology sentinel() {
        return REDIS.topology();
    }

    static RedissonClient check() {
        return REDIS.check();
    }

    @Test
    @Order(1)
    void routesAreWrittenAndDeletedThroughTheSentinelsMaster() throws Exception {
        FakeNode a = new FakeNode();
        RedisRouteStore store = REDIS.start("node-a", a);
        List<Route> routes = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Route r = REDIS.route("s-dev-" + i, "node-a");
            routes.add(r);
            a.live.put(r.clientId(), r);
            writes.add(store.put(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        await("every route readable", () -> routes.stream().allMatch(r ->
                Long.toString(r.epoch()).equals(REDIS.hgetall(r.clientId()).get("epoch"))), 20);
        List<CompletableFuture<Void>> deletes = new ArrayList<>();
        for (Route r : routes) {
            a.live.remove(r.clientId(), r);
            deletes.add(store.remove(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)));
        await("every route gone", () -> routes.stream().allMatch(r -> REDIS.hgetall(r.clientId()).isEmpty()), 20);
    }

    @Test
    @Order(2)
    void persistentSessionsGetTheirExpiryWhenTheDeviceLeaves() throws Exception {
        RedissonClient client = Redisson.create(REDIS.settings().redissonConfig("test-sessions"));
        RedisSessionStore sessions = new RedisSessionStore(client, "mqttgw", Duration.ofMinutes(10), 10, 10, true,
                "node-a", 1000);
        try {
            for (int i = 0; i < 20; i++) {
                join(sessions.open("p-dev-" + i, false, 0x7fffffff, 100 + i));
                join(sessions.disconnected("p-dev-" + i, 100 + i, 600_000));
            }
            await("every session expires", () -> {
                for (int i = 0; i < 20; i++) {
                    long ttl = check().getBucket("mqttgw:session:{p-dev-" + i + "}").remainTimeToLive();
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

    /** As in a Cluster: a PUBLISH misses the replicas' subscribers, the heartbeat tells. */
    @Test
    @Order(3)
    void operationForwardedToANodeFoundDeadIsAnsweredUnreachableWellBeforeItsBound() throws Exception {
        DeadHolderForwarding.assertAnsweredUnreachableWellBeforeTheBound(REDIS, "node-crashed");
    }

    /**
     * Under a steady load of writes and deletes the master is killed; the sentinels promote the replica, the store
     * follows them and every device ends with its last route on the new master.
     */
    @Test
    @Order(10)
    void routeWritesAndDeletesResumeOnThePromotedReplica() throws Exception {
        FakeNode events = new FakeNode();
        RedisRouteStore store = REDIS.start("node-f", events, "routes.redis.timeout", "3s");
        List<String> devices = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            devices.add("f-dev-" + i);
        }
        RedisTestServer killed = null;
        long failoverMillis;
        RouteLoad load = new RouteLoad(store, events, "node-f", devices, Set.copyOf(devices), REDIS.epochs());
        try {
            Thread.sleep(2000);
            System.out.printf(Locale.ROOT,
                    "RedisSentinelIT: before the kill the slowest route operation took %d ms%n",
                    load.reset());
            long killedAt = System.nanoTime();
            killed = sentinel().killMasterAndAwaitFailover(40);
            failoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            Thread.sleep(6000);
        } finally {
            load.close();
            if (killed != null) {
                sentinel().restart(killed, 60);
            }
        }
        join(load.allDone());
        await("every device's last route on the new master", () -> load.last().entrySet().stream().allMatch(e ->
                Long.toString(e.getValue().epoch()).equals(REDIS.hgetall(e.getKey()).get("epoch"))), 30);
        System.out.printf(Locale.ROOT,
                "RedisSentinelIT: failover took %d ms; route operations from the kill on: %d in all, "
                + "slowest %d ms, %d over 500 ms%n", failoverMillis, load.ops(), load.maxMillis(), load.slow());
        assertTrue(load.ops() > 0);
        assertEquals(40, load.last().size());
    }

    @Test
    @Order(11)
    void aSessionStoreClosedDuringAFailoverFinishesInTimeAndEverySessionKeepsItsExpiry() throws Exception {
        SessionCloseAroundFailover.assertClosedInTimeWithEveryExpiry(REDIS, "during", false);
    }

    @Test
    @Order(12)
    void aSessionStoreClosedRightAfterAFailoverFinishesInTimeAndEverySessionKeepsItsExpiry() throws Exception {
        SessionCloseAroundFailover.assertClosedInTimeWithEveryExpiry(REDIS, "after", true);
    }
}
