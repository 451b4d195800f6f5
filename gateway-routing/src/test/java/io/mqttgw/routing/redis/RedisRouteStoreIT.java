package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static io.mqttgw.routing.testkit.TestRouteStores.batches;
import static io.mqttgw.routing.testkit.TestRouteStores.ops;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import io.netty.util.ResourceLeakDetector;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/** The store against a real redis-server on 127.0.0.1: what lands in Redis, fencing, batching, outages. */
class RedisRouteStoreIT extends RedisServerTests {
    final List<RedisRouteStore> stores = new ArrayList<>();
    final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);

    @BeforeEach
    void emptyRedis() {
        redis.start();
        check.getKeys().flushall();
    }

    @AfterEach
    void closeStores() throws Exception {
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    RedisRouteStore start(String node, SimpleMeterRegistry meters, FakeNode events, String... overrides) {
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis, overrides), node, meters);
        stores.add(store);
        store.start(events);
        return store;
    }

    Route route(String clientId, String node) {
        return new Route(clientId, node, epochs.incrementAndGet(), System.currentTimeMillis(), "127.0.0.1:40000");
    }

    /** What the gateway does on CONNECT: the session is live (in the registry) before its route is queued. */
    static CompletionStage<Void> connect(RedisRouteStore store, FakeNode node, Route r) {
        node.live.put(r.clientId(), r);
        return store.put(r);
    }

    /** What the gateway does on disconnect: the session leaves the registry, then its fenced delete is queued. */
    static CompletionStage<Void> disconnect(RedisRouteStore store, FakeNode node, Route r) {
        node.live.remove(r.clientId(), r);
        return store.remove(r);
    }

    static Map<String, String> hgetall(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    static void join(CompletionStage<?> stage) throws Exception {
        stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static void joinStorm(CompletionStage<?> stage) throws Exception {
        stage.toCompletableFuture().get(180, TimeUnit.SECONDS);
    }

    static long routeKeys() {
        return check.getKeys().getKeysStreamByPattern("mqttgw:route:*", 1000).count();
    }

    @Test
    void writesARouteABusinessServiceReadsWithOneHgetallAndDeletesIt() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", meters, node);
        Route r = route("device-1", "node-a");
        join(connect(store, node, r));

        Map<String, String> fields = hgetall("device-1");
        assertEquals("node-a", fields.get("node"));
        assertEquals(Long.toString(r.epoch()), fields.get("epoch"));
        assertEquals(Long.toString(r.connectedAtMillis()), fields.get("connected_at"));
        assertEquals("127.0.0.1:40000", fields.get("remote"));
        assertEquals(r, store.lookup("device-1").toCompletableFuture().get(5, TimeUnit.SECONDS).orElseThrow());
        assertEquals(Double.valueOf(r.epoch()), check.getScoredSortedSet("mqttgw:node:{node-a}:routes",
                StringCodec.INSTANCE).getScore("device-1"));

        join(disconnect(store, node, r));
        assertTrue(hgetall("device-1").isEmpty());
        assertTrue(store.lookup("device-1").toCompletableFuture().get(5, TimeUnit.SECONDS).isEmpty());
        assertEquals(0, check.getScoredSortedSet("mqttgw:node:{node-a}:routes").size());
        assertEquals(1, ops(meters, "put", "written"));
        assertEquals(1, ops(meters, "delete", "deleted"));
    }

    @Test
    void deleteWithAnOldEpochLeavesTheNewerRouteAndAnOlderWriteCannotReplaceIt() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", meters, node);
        Route older = route("device-1", "node-a");
        Route newer = route("device-1", "node-a");
        join(connect(store, node, older));
        join(connect(store, node, newer));
        join(disconnect(store, node, older));
        assertEquals(Long.toString(newer.epoch()), hgetall("device-1").get("epoch"));
        assertEquals(1, ops(meters, "delete", "fenced"));

        join(store.put(older));
        assertEquals(Long.toString(newer.epoch()), hgetall("device-1").get("epoch"));
        assertEquals(1, ops(meters, "put", "stale"));

        Route elsewhere = new Route("device-2", "node-b", newer.epoch(), System.currentTimeMillis(), "x");
        check.getMap("mqttgw:route:{device-2}", StringCodec.INSTANCE).putAll(Map.of("node", "node-b",
                "epoch", Long.toString(elsewhere.epoch())));
        join(store.remove(new Route("device-2", "node-a", newer.epoch(), 0, "y")));
        assertEquals("node-b", hgetall("device-2").get("node"));
        assertEquals(2, ops(meters, "delete", "fenced"));
    }

    @Test
    void aWriteAndTheDeleteOfTheSameConnectionCancelOutBeforeReachingRedis() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", meters, node, "routes.redis.flush-interval", "2s");
        Route kept = route("device-kept", "node-a");
        Route gone = route("device-gone", "node-a");
        TestRouteStores.await("startup resync done", () -> store.health().up()
                && meters.get("mqttgw.routes.redis.resyncs").counter().count() == 1, 10);
        Thread.sleep(200);
        CompletionStage<Void> p1 = connect(store, node, gone);
        CompletionStage<Void> p2 = connect(store, node, kept);
        CompletionStage<Void> d1 = disconnect(store, node, gone);
        join(CompletableFuture.allOf(p1.toCompletableFuture(), p2.toCompletableFuture(), d1.toCompletableFuture()));

        assertEquals(1, ops(meters, "put", "coalesced"));
        assertEquals(1, ops(meters, "delete", "coalesced"));
        assertEquals(1, ops(meters, "put", "written"));
        assertEquals(0, ops(meters, "delete", "deleted") + ops(meters, "delete", "fenced"));
        assertEquals(1, batches(meters));
        assertTrue(hgetall("device-gone").isEmpty());
        assertEquals("node-a", hgetall("device-kept").get("node"));
    }

    /**
     * Runs the leak detector at SIMPLE (sampling) while it floods the Redis client: at PARANOID it records a stack
     * trace on every write into a buffer, and Redisson's encoder writes every argument of every command, which turns
     * this storm of 400,000 script calls into minutes. No gateway buffers are involved here; every other test runs
     * at PARANOID.
     */
    @Test
    void aDisconnectStormOf100000IsFlushedInPipelinesThroughTheBoundedQueue() throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        try {
            storm();
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    private void storm() throws Exception {
        int devices = 100_000;
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", meters, node, "routes.redis.queue-capacity", "131072",
                "routes.redis.batch-size", "1000", "routes.redis.timeout", "10s");
        List<Route> routes = new ArrayList<>(devices);
        List<CompletableFuture<Void>> writes = new ArrayList<>(devices);
        for (int i = 0; i < devices; i++) {
            Route r = route("storm-" + i, "node-a");
            routes.add(r);
            writes.add(connect(store, node, r).toCompletableFuture());
        }
        // what this test checks is counts and pipeline sizes, not speed: on a loaded 2-core machine (other builds
        // running) 100,000 writes took more than 20 s, so the storm's own waits are longer
        joinStorm(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        assertEquals(devices, routeKeys());
        long batchesBefore = batches(meters);

        List<CompletableFuture<Void>> deletes = new ArrayList<>(devices);
        int maxQueued = 0;
        for (Route r : routes) {
            deletes.add(disconnect(store, node, r).toCompletableFuture());
            maxQueued = Math.max(maxQueued, store.queued());
        }
        joinStorm(CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)));

        long stormBatches = batches(meters) - batchesBefore;
        assertEquals(devices, ops(meters, "delete", "deleted"));
        assertEquals(0, ops(meters, "delete", "dropped"));
        assertEquals(0, routeKeys());
        assertTrue(maxQueued <= 131072, "queue stayed within its bound: " + maxQueued);
        assertTrue(stormBatches >= devices / 1000, "at most 1000 devices per pipeline: " + stormBatches);
        assertTrue(stormBatches <= 2 * devices / 1000, "pipelines were mostly full: " + stormBatches
                + " pipelines for " + devices + " deletes");
        assertTrue(meters.get("mqttgw.routes.redis.batch.size").summary().max() <= 1000);
    }

    @Test
    void aFullQueueDropsCountsAndReportsThenTheResyncRestoresTheLiveRoutes() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        redis.stop();
        RedisRouteStore store = start("node-a", meters, node, "routes.redis.queue-capacity", "1024",
                "routes.redis.batch-size", "100");
        List<CompletableFuture<Void>> stages = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            Route r = route("burst-" + i, "node-a");
            node.live.put(r.clientId(), r);
            stages.add(store.put(r).toCompletableFuture());
        }
        long dropped = stages.stream().filter(s -> s.isCompletedExceptionally()).count();
        assertTrue(dropped >= 3000 - 2 * 1024, "dropped " + dropped);
        assertEquals(dropped, (long) ops(meters, "put", "dropped"));
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> stages.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst().orElseThrow()
                        .join());
        assertInstanceOf(RouteQueueFullException.class, e.getCause());
        assertFalse(store.health().up());

        redis.start();
        await("every live route in Redis", () -> routeKeys() == 3000, 30);
        await("health up", () -> store.health().up(), 10);
        for (String id : List.of("burst-0", "burst-1500", "burst-2999")) {
            assertEquals(Long.toString(node.live.get(id).epoch()), hgetall(id).get("epoch"));
        }
    }

    @Test
    void redisStoppedMidTestNeverStallsTheCallerAndTheTableConvergesAfterRestart() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", meters, node);
        List<Route> first = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Route r = route("dev-" + i, "node-a");
            first.add(r);
            connect(store, node, r);
        }
        await("500 routes", () -> routeKeys() == 500, 20);

        redis.stop();
        long worstNanos = 0;
        long totalNanos = 0;
        int calls = 0;
        for (int i = 0; i < 250; i++) {
            Route gone = first.get(i);
            node.live.remove(gone.clientId());
            long t0 = System.nanoTime();
            store.remove(gone); // timed alone: the gateway's registry update is not the store's cost
            long t1 = System.nanoTime();
            Route fresh = route("new-" + i, "node-a");
            node.live.put(fresh.clientId(), fresh);
            long t2 = System.nanoTime();
            store.put(fresh);
            long t3 = System.nanoTime();
            worstNanos = Math.max(worstNanos, Math.max(t1 - t0, t3 - t2));
            totalNanos += (t1 - t0) + (t3 - t2);
            calls += 2;
            if (i % 50 == 0) {
                Thread.sleep(20);
            }
        }
        assertTrue(worstNanos < TimeUnit.MILLISECONDS.toNanos(20),
                "put/remove returned at once while Redis was down: worst " + worstNanos / 1000 + " us, mean "
                        + totalNanos / calls / 1000 + " us");
        await("health degraded", () -> !store.health().up(), 10);
        assertTrue(store.health().detail().startsWith("redis:"), store.health().detail());

        redis.start();
        await("table converged to the live sessions", () -> {
            if (routeKeys() != node.live.size()) {
                return false;
            }
            for (Route r : node.live.values()) {
                if (!Long.toString(r.epoch()).equals(hgetall(r.clientId()).get("epoch"))) {
                    return false;
                }
            }
            return true;
        }, 30);
        await("health up", () -> store.health().up(), 10);
        assertTrue(meters.get("mqttgw.routes.redis.batch.failures").counter().count() > 0);
        await("startup and recovery resyncs", () -> meters.get("mqttgw.routes.redis.resyncs").counter().count() >= 2,
                10);
    }

    /**
     * A job between flushes fails (Redis stalls: CLIENT PAUSE), then Redis answers again while no device connects or
     * leaves: the flusher goes back to sleeping between its checks rather than looping until some flush is answered.
     * The flusher threads' CPU time over two seconds tells which.
     */
    @Test
    void theFlusherSleepsAgainWhenRedisAnswersAfterAFailedJobAndNoDeviceComes() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        RedisRouteStore store = start("node-a", meters, new FakeNode(), "routes.redis.timeout", "300ms",
                "routes.redis.heartbeat-interval", "200ms");
        await("start-up resync done", () -> meters.get("mqttgw.routes.redis.resyncs").counter().count() == 1
                && store.health().up(), 10);
        redis.pauseAll(Duration.ofSeconds(2));
        await("a job between flushes failed while Redis stalled",
                () -> meters.get("mqttgw.routes.redis.batch.failures").counter().count() > 0, 10);
        await("Redis answers again", () -> check.getKeys().countExists("mqttgw:node:{node-a}:alive") == 1, 20);
        // the backoff after the failure is over (at most retry-max-delay)
        Thread.sleep(TestRouteStores.settings(redis).retryMaxDelay().toMillis() + 500);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Long> flushers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("redis-route-flusher")).map(Thread::getId).toList();
        assertEquals(1, flushers.size(), "flusher threads");
        long cpuBefore = threads.getThreadCpuTime(flushers.get(0));
        long start = System.nanoTime();
        Thread.sleep(2000);
        long cpu = threads.getThreadCpuTime(flushers.get(0)) - cpuBefore;
        long wall = System.nanoTime() - start;
        assertTrue(cpu < wall / 10, "the flusher spent " + cpu / 1_000_000 + " ms of CPU in " + wall / 1_000_000
                + " ms with nothing to do");
    }

    @Test
    void aWriteOverAnotherNodesRouteTellsThatNodeWhichEpochItLost() throws Exception {
        FakeNode a = new FakeNode();
        FakeNode b = new FakeNode();
        RedisRouteStore storeA = start("node-a", TestRouteStores.meters(), a);
        SimpleMeterRegistry metersB = TestRouteStores.meters();
        RedisRouteStore storeB = start("node-b", metersB, b);
        Route onA = route("mover", "node-a");
        join(connect(storeA, a, onA));
        await("node a subscribed", () -> storeA.health().up(), 5);
        Thread.sleep(200);

        join(connect(storeB, b, route("mover", "node-b")));
        await("node a told", () -> a.takenOver.contains("mover@" + onA.epoch()), 10);
        assertEquals("node-b", hgetall("mover").get("node"));
        assertEquals(1, ops(metersB, "put", "takeover"));
        assertTrue(b.takenOver.isEmpty());
    }

    @Test
    void aDeadNodesRoutesAreRemovedButRoutesOtherNodesTookOverStay() throws Exception {
        // node-x wrote two routes, then crashed: no heartbeat key, membership and index left behind
        check.getSet("mqttgw:nodes", StringCodec.INSTANCE).add("node-x");
        for (String id : List.of("orphan", "moved")) {
            check.getMap("mqttgw:route:{" + id + "}", StringCodec.INSTANCE).putAll(Map.of("node", "node-x",
                    "epoch", "1000", "connected_at", "1", "remote", "r"));
            check.getScoredSortedSet("mqttgw:node:{node-x}:routes", StringCodec.INSTANCE).add(1000, id);
        }
        check.getMap("mqttgw:route:{moved}", StringCodec.INSTANCE).putAll(Map.of("node", "node-b", "epoch", "7"));

        SimpleMeterRegistry meters = TestRouteStores.meters();
        start("node-a", meters, new FakeNode(), "routes.redis.heartbeat-interval", "100ms",
                "routes.redis.node-ttl", "1s");
        await("dead node cleaned", () -> meters.get("mqttgw.routes.redis.dead.nodes").counter().count() == 1, 10);
        assertTrue(hgetall("orphan").isEmpty());
        assertEquals("node-b", hgetall("moved").get("node"));
        assertFalse(check.getSet("mqttgw:nodes", StringCodec.INSTANCE).contains("node-x"));
        assertEquals(1, meters.get("mqttgw.routes.redis.dead.node.routes").counter().count());
    }

    @Test
    void startupDeletesRoutesThisNodeLeftFromAPreviousRun() throws Exception {
        check.getMap("mqttgw:route:{stale}", StringCodec.INSTANCE).putAll(Map.of("node", "node-a", "epoch", "55",
                "connected_at", "1", "remote", "r"));
        check.getScoredSortedSet("mqttgw:node:{node-a}:routes", StringCodec.INSTANCE).add(55, "stale");
        SimpleMeterRegistry meters = TestRouteStores.meters();
        start("node-a", meters, new FakeNode());
        await("stale route deleted", () -> hgetall("stale").isEmpty(), 10);
        // the flusher counts the deletion once its pipeline completed, a moment after Redis shows it
        await("deletion counted", () -> meters.get("mqttgw.routes.redis.resync.routes").tag("result", "deleted")
                .counter().count() == 1, 10);
    }

    /**
     * A node closes its devices while the route store shuts down, so their route deletes arrive during the store's
     * last clean-up and after it: the clean-up deleted every route of this node, so those deletes are done, not
     * "not stored", and a delete made after the store closed completes at once instead of waiting for ever.
     */
    @Test
    void deletesQueuedWhileAndAfterTheStoreClosesCompleteAndAreNotCountedAsLost() throws Exception {
        SimpleMeterRegistry meters = TestRouteStores.meters();
        FakeNode node = new FakeNode();
        // what is checked is the shutdown, not timeouts: on a loaded machine neither a pipeline nor the clean-up
        // (which stops at shutdown.timeout, leaving the rest to the heartbeat's expiry) may run out of time here
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis, "routes.redis.timeout", "10s"),
                "node-c", meters, java.time.Duration.ofSeconds(60));
        store.start(node);
        List<Route> routes = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            Route r = route("closing-" + i, "node-c");
            routes.add(r);
            writes.add(connect(store, node, r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        CompletableFuture<Void> closed = store.close().toCompletableFuture();
        List<CompletableFuture<Void>> deletes = new ArrayList<>();
        int i = 0;
        // the last hundred wait until the store has closed
        while (!closed.isDone() && i < routes.size() - 100) {
            deletes.add(disconnect(store, node, routes.get(i++)).toCompletableFuture());
            if (i % 50 == 0) {
                Thread.sleep(1);
            }
        }
        closed.get(90, TimeUnit.SECONDS);
        assertTrue(i <= routes.size() - 100);
        while (i < routes.size()) {
            deletes.add(disconnect(store, node, routes.get(i++)).toCompletableFuture());
        }
        for (CompletableFuture<Void> d : deletes) {
            d.get(10, TimeUnit.SECONDS);
        }
        assertEquals(0, ops(meters, "delete", "abandoned"));
        assertEquals(0, routeKeys());
    }

    @Test
    void cleanShutdownDeletesTheNodesRoutesHeartbeatAndMembership() throws Exception {
        FakeNode node = new FakeNode();
        RedisRouteStore store = start("node-a", TestRouteStores.meters(), node);
        Map<String, Route> routes = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            Route r = route("open-" + i, "node-a");
            routes.put(r.clientId(), r);
            connect(store, node, r);
        }
        await("routes written", () -> routeKeys() == 50, 10);
        // the first heartbeat runs on its own thread: on a loaded machine the routes can land before it
        await("heartbeat written", () -> check.getKeys().countExists("mqttgw:node:{node-a}:alive") == 1, 10);
        join(store.close());
        stores.remove(store);
        assertEquals(0, routeKeys());
        assertEquals(0, check.getKeys().countExists("mqttgw:node:{node-a}:alive"));
        assertFalse(check.getSet("mqttgw:nodes", StringCodec.INSTANCE).contains("node-a"));
        assertNull(check.getBucket("mqttgw:node:{node-a}:alive").get());
    }
}
