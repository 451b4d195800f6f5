package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static io.mqttgw.routing.testkit.TestRouteStores.join;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.routing.session.RedisSessionStore;
import io.mqttgw.routing.testkit.RedisClusterTopology;
import io.mqttgw.routing.testkit.RedisTopologyExtension;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The route store and the session store on a real Redis Cluster (3 masters, 3 replicas): every script and pipeline
 * keeps to one slot per command (a CROSSSLOT error would fail them), and a master failover holds up only the writes
 * of the shard that failed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIT {
    @RegisterExtension
    static final RedisTopologyExtension<RedisClusterTopology> REDIS = RedisTopologyExtension.cluster();

    static RedisClusterTopology cluster() {
        return REDIS.topology();
    }

    static RedissonClient check() {
        return REDIS.check();
    }

    private static final RouteKeys KEYS = new RouteKeys("mqttgw");

    /** Every entry of {@code node}'s route index, read as the gateway reads it: the single key, then every slot's. */
    static List<NodeRouteIndex.Entry> indexOf(String node) throws Exception {
        NodeRouteIndex index = new NodeRouteIndex(check(), KEYS,
                new RouteBatches(check(), KEYS, node, Duration.ofSeconds(10)), 1000);
        List<NodeRouteIndex.Entry> all = new ArrayList<>();
        NodeRouteIndex.Chunk chunk = index.read(index.start(node));
        while (!chunk.end()) {
            all.addAll(chunk.entries());
            chunk = index.read(chunk.next());
        }
        return all;
    }

    /**
     * Routes of {@code node} written as a gateway of an earlier version wrote them in Redis Cluster: the route hash,
     * then its entry in the node's single index. Answers the client ids, whose routes span every master.
     */
    static List<String> writeAsAnEarlierVersion(String node, String prefix, int count) {
        List<String> ids = new ArrayList<>();
        boolean[] shards = new boolean[3];
        for (int i = 0; i < count; i++) {
            String id = prefix + i;
            long epoch = REDIS.epochs().incrementAndGet();
            shards[RedisClusterTopology.shard(cluster().slot("mqttgw:route:{" + id + "}"))] = true;
            check().getScoredSortedSet(KEYS.nodeRoutes(node), StringCodec.INSTANCE).add(epoch, id);
            check().<String, String>getMap(KEYS.route(id), StringCodec.INSTANCE).putAll(Map.of("node", node,
                    "epoch", Long.toString(epoch), "connected_at", "1", "remote", "10.0.0.1:1", "proof",
                    "certificate"));
            ids.add(id);
        }
        assertTrue(shards[0] && shards[1] && shards[2], "the routes span every master");
        return ids;
    }

    /** Once every operation of the load is done, each device's route is the last one written for it. */
    static void everyDeviceEndsWithItsLastRoute(RouteLoad load) throws Exception {
        join(load.allDone());
        for (Map.Entry<String, Route> e : load.last().entrySet()) {
            assertEquals(Long.toString(e.getValue().epoch()), REDIS.hgetall(e.getKey()).get("epoch"), e.getKey());
        }
    }

    @Test
    @Order(0)
    void theFlushersSlotOfAKeyIsTheOneRedisComputes() {
        for (int i = 0; i < 200; i++) {
            String key = i % 2 == 0 ? "mqttgw:route:{dev-" + i + "}" : "plain-" + i;
            assertEquals(cluster().slot(key), ClusterShards.slot(key), key);
        }
    }

    /** Other nodes find a node's index by these names: Redis must put each in the slot the gateway computes. */
    @Test
    @Order(0)
    void everySlotsIndexKeyIsInThatSlotAsRedisComputesIt() {
        for (int slot = 0; slot < ClusterShards.SLOTS; slot += 97) {
            assertEquals(slot, cluster().slot(KEYS.nodeSlotRoutes("node-a", slot)), "slot " + slot);
        }
        assertEquals(ClusterShards.SLOTS - 1, cluster().slot(KEYS.nodeSlotRoutes("node-a", ClusterShards.SLOTS - 1)));
    }

    @Test
    @Order(1)
    void routesOnEveryMasterAreWrittenTakenOverAndDeletedWithoutCrossSlotErrors() throws Exception {
        FakeNode a = new FakeNode();
        FakeNode b = new FakeNode();
        RedisRouteStore storeA = REDIS.start("node-a", a);
        RedisRouteStore storeB = REDIS.start("node-b", b);
        cluster().resetStats();
        List<Route> routes = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        boolean[] shards = new boolean[3];
        for (int i = 0; i < 300; i++) {
            Route r = REDIS.route("c-dev-" + i, "node-a");
            shards[RedisClusterTopology.shard(cluster().slot("mqttgw:route:{" + r.clientId() + "}"))] = true;
            routes.add(r);
            a.live.put(r.clientId(), r);
            writes.add(storeA.put(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        assertTrue(shards[0] && shards[1] && shards[2], "the devices span every master");
        // read at once after the write: the client reads from the masters (a replica may not have the write yet)
        for (Route r : routes) {
            assertEquals(Long.toString(r.epoch()), REDIS.hgetall(r.clientId()).get("epoch"), r.clientId());
        }
        assertEquals(0, cluster().calls("slave", "hgetall"), "reads served by a replica");
        assertTrue(cluster().calls("master", "hgetall") >= 300, "reads served by the masters");
        List<NodeRouteIndex.Entry> indexed = indexOf("node-a");
        assertEquals(300, indexed.size());
        assertTrue(indexed.stream().noneMatch(NodeRouteIndex.Entry::legacy), "written to the single index");
        for (NodeRouteIndex.Entry e : indexed) {
            assertEquals(cluster().slot("mqttgw:route:{" + e.clientId() + "}"),
                    cluster().slot(KEYS.nodeSlotRoutesOf("node-a", e.clientId())), e.clientId());
        }

        // node-b takes ten devices over: the PUBLISH in the script reaches node-a's subscription through the cluster
        for (int i = 0; i < 10; i++) {
            Route r = REDIS.route("c-dev-" + i, "node-b");
            b.live.put(r.clientId(), r);
            join(storeB.put(r));
        }
        await("node-a told of ten takeovers", () -> a.takenOver.size() == 10, 20);
        assertEquals("node-b", REDIS.hgetall("c-dev-0").get("node"));

        List<CompletableFuture<Void>> deletes = new ArrayList<>();
        for (Route r : routes) {
            a.live.remove(r.clientId(), r);
            deletes.add(storeA.remove(r).toCompletableFuture());
        }
        join(CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)));
        for (int i = 0; i < 300; i++) {
            assertEquals(i < 10 ? "node-b" : null, REDIS.hgetall("c-dev-" + i).get("node"), "c-dev-" + i);
        }
        assertEquals(List.of(), indexOf("node-a"));
    }

    @Test
    @Order(2)
    void aCleanShutdownDeletesTheNodesRoutesOnEveryMaster() throws Exception {
        FakeNode a = new FakeNode();
        // the clean-up reads the key of every slot of the node's index (about 1.5 s here, several times that on a
        // loaded machine): the store has 20 s to close, not the test kit's 5
        RedisRouteStore store = TestRouteStores.store(REDIS.settings(), "node-s", TestRouteStores.meters(),
                Duration.ofSeconds(20));
        store.start(a);
        try {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Route r = REDIS.route("s-dev-" + i, "node-s");
                a.live.put(r.clientId(), r);
                writes.add(store.put(r).toCompletableFuture());
            }
            join(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        } finally {
            join(store.close());
        }
        for (int i = 0; i < 100; i++) {
            assertTrue(REDIS.hgetall("s-dev-" + i).isEmpty(), "s-dev-" + i);
        }
        assertEquals(0, check().getKeys().countExists("mqttgw:node:{node-s}:alive", "mqttgw:node:{node-s}:routes"));
        assertEquals(List.of(), indexOf("node-s"));
    }

    @Test
    @Order(3)
    void persistentSessionsOnEveryMasterAreStoredAndGetTheirExpiryWhenTheDeviceLeaves() throws Exception {
        RedisRouteSettings settings = REDIS.settings();
        RedissonClient client = Redisson.create(settings.redissonConfig("test-sessions"));
        RedisSessionStore sessions = new RedisSessionStore(client, "mqttgw", Duration.ofMinutes(10), 10, 10, true,
                "node-a", 1000);
        try {
            boolean[] shards = new boolean[3];
            for (int i = 0; i < 30; i++) {
                String id = "p-dev-" + i;
                shards[RedisClusterTopology.shard(cluster().slot("mqttgw:session:{" + id + "}"))] = true;
                join(sessions.open(id, false, 0x7fffffff, 100 + i));
                join(sessions.saveSubscriptions(id, Map.of("t/" + i, new Subscription(1, false, 0, 0))));
                join(sessions.disconnected(id, 100 + i, 600_000));
            }
            assertTrue(shards[0] && shards[1] && shards[2], "the sessions span every master");
            for (int i = 0; i < 30; i++) {
                long ttl = check().getBucket("mqttgw:session:{p-dev-" + i + "}").remainTimeToLive();
                assertTrue(ttl > 0 && ttl <= 600_000, "p-dev-" + i + " expires, ttl " + ttl);
                StoredSession back = sessions.open("p-dev-" + i, false, 0x7fffffff, 200 + i).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                assertTrue(back.present(), "p-dev-" + i);
                assertEquals(Map.of("t/" + i, new Subscription(1, false, 0, 0)), back.subscriptions());
            }
            assertEquals(30, check().getScoredSortedSet("mqttgw:sessions-left:{node-a}").size());
        } finally {
            sessions.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Order(4)
    void theRouteTableCheckScansEveryMasterAndRepairsAcrossSlots() throws Exception {
        FakeNode a = new FakeNode();
        for (int i = 0; i < 60; i++) {
            Route r = REDIS.route("v-dev-" + i, "node-v");
            a.live.put(r.clientId(), r);
        }
        // the startup resync writes the live routes; once it has, nothing rewrites a route behind the test's back
        SimpleMeterRegistry meters = TestRouteStores.meters();
        RedisRouteStore store = REDIS.start("node-v", a, meters, "routes.redis.heartbeat-interval", "200ms");
        await("the startup resync wrote the live routes", () -> meters.get("mqttgw.routes.redis.resync.routes")
                .tag("result", "written").counter().count() == 60, 30);
        check().getKeys().delete("mqttgw:route:{v-dev-7}");
        boolean[] shards = new boolean[3];
        for (int i = 0; i < 12; i++) {
            String id = "v-orphan-" + i;
            shards[RedisClusterTopology.shard(cluster().slot("mqttgw:route:{" + id + "}"))] = true;
            check().<String, String>getMap("mqttgw:route:{" + id + "}", StringCodec.INSTANCE).putAll(Map.of(
                    "node", "node-gone", "epoch", "9", "connected_at", "1", "remote", "10.0.0.1:1",
                    "proof", "certificate"));
        }
        assertTrue(shards[0] && shards[1] && shards[2], "the planted routes span every master");

        RouteCheck found = store.verify(false).toCompletableFuture().get(60, TimeUnit.SECONDS);
        Map<String, RouteCheck.Kind> kinds = new TreeMap<>();
        found.differences().stream().filter(d -> d.clientId().startsWith("v-"))
                .forEach(d -> kinds.put(d.clientId(), d.kind()));
        assertEquals(13, kinds.size(), kinds.toString());
        assertEquals(RouteCheck.Kind.MISSING, kinds.get("v-dev-7"));
        assertEquals(RouteCheck.Kind.DEAD_NODE, kinds.get("v-orphan-11"));

        RouteCheck repaired = store.verify(true).toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertTrue(repaired.repaired() >= 13, repaired.toString());
        assertEquals("node-v", REDIS.hgetall("v-dev-7").get("node"));
        for (int i = 0; i < 12; i++) {
            assertEquals(Map.of(), REDIS.hgetall("v-orphan-" + i));
        }
    }

    /**
     * A node crashed while its routes still name it: once the fleet found it dead (its heartbeat stopped advancing
     * and its key is gone), a downlink or kick forwarded to it is answered unreachable at once, not after its bound.
     * A PUBLISH in a Cluster counts the subscribers of one Redis node only, so the count cannot tell this; the
     * heartbeat can.
     */
    @Test
    @Order(5)
    void operationForwardedToANodeFoundDeadIsAnsweredUnreachableWellBeforeItsBound() throws Exception {
        DeadHolderForwarding.assertAnsweredUnreachableWellBeforeTheBound(REDIS, "node-crashed");
    }

    /**
     * Rolling upgrade: a node of the earlier version, which indexed its routes in one key, died. A node of this
     * version finds it dead and removes its routes from that key's entries, and the key with them.
     */
    @Test
    @Order(6)
    void aDeadNodeOfTheEarlierVersionHasItsRoutesRemovedFromItsSingleIndex() throws Exception {
        List<String> ids = writeAsAnEarlierVersion("node-old", "o-dev-", 30);
        check().getSet(KEYS.nodes(), StringCodec.INSTANCE).add("node-old");
        SimpleMeterRegistry meters = TestRouteStores.meters();
        REDIS.start("node-w", new FakeNode(), meters, "routes.redis.heartbeat-interval", "100ms",
                "routes.redis.node-ttl", "1s");
        await("node-old's routes removed", () -> ids.stream().allMatch(id -> REDIS.hgetall(id).isEmpty()), 30);
        await("node-old's single index gone", () -> check().getKeys().countExists(KEYS.nodeRoutes("node-old")) == 0,
                10);
        assertEquals(List.of(), indexOf("node-old"));
        assertTrue(meters.get("mqttgw.routes.redis.dead.node.routes").counter().count() >= 30);
    }

    /**
     * Rolling upgrade: a node restarted under the same id on this version finds the routes its earlier run indexed in
     * the single key: the resync deletes those that are not live again and empties the key; the device that connected
     * again keeps its new route, indexed in its slot.
     */
    @Test
    @Order(7)
    void aResyncRemovesTheRoutesTheNodesEarlierVersionIndexedInItsSingleKey() throws Exception {
        List<String> ids = writeAsAnEarlierVersion("node-u", "u-dev-", 30);
        FakeNode u = new FakeNode();
        Route again = REDIS.route(ids.get(0), "node-u");
        u.live.put(again.clientId(), again);
        SimpleMeterRegistry meters = TestRouteStores.meters();
        REDIS.start("node-u", u, meters);
        await("the resync deleted the 29 routes no longer live", () -> meters.get("mqttgw.routes.redis.resync.routes")
                .tag("result", "deleted").counter().count() == 29, 30);
        for (String id : ids.subList(1, ids.size())) {
            assertEquals(Map.of(), REDIS.hgetall(id), id);
        }
        assertEquals(Long.toString(again.epoch()), REDIS.hgetall(again.clientId()).get("epoch"));
        await("node-u's single index gone", () -> check().getKeys().countExists(KEYS.nodeRoutes("node-u")) == 0, 10);
        assertEquals(List.of(new NodeRouteIndex.Entry(again.clientId(), again.epoch(), false)), indexOf("node-u"));
    }

    /**
     * How long a full read of a node's index takes: 20,000 routes in the slots' keys (and 2,500 more in one slot,
     * read over several chunks) against 20,000 in the single key. Every entry is read once; the times are printed,
     * not asserted: a loaded machine decides them.
     */
    @Test
    @Order(8)
    void readingANodesIndexOf20000RoutesFromItsSlotsAndFromOneKey() throws Exception {
        int routes = 20_000;
        // one ZADD per key, in a pipeline given time enough for a loaded machine
        RBatch batch = check().createBatch(BatchOptions.defaults().responseTimeout(60, TimeUnit.SECONDS)
                .retryAttempts(3));
        Map<String, Double> single = new HashMap<>();
        Map<String, Map<String, Double>> bySlot = new HashMap<>();
        for (int i = 0; i < routes; i++) {
            String id = "r-dev-" + i;
            bySlot.computeIfAbsent(KEYS.nodeSlotRoutesOf("node-r", id), k -> new HashMap<>()).put(id, i + 1.0);
            single.put(id, i + 1.0);
        }
        bySlot.forEach((key, entries) -> batch.<String>getScoredSortedSet(key, StringCodec.INSTANCE)
                .addAllAsync(entries));
        batch.<String>getScoredSortedSet(KEYS.nodeRoutes("node-r1"), StringCodec.INSTANCE).addAllAsync(single);
        // one slot with more entries than a chunk: read on from its last epoch, over several chunks
        Map<String, Double> crowded = new HashMap<>();
        for (int i = 0; i < 2500; i++) {
            crowded.put("r-crowded-" + i, (double) (routes + 1 + i));
        }
        batch.<String>getScoredSortedSet(KEYS.nodeSlotRoutes("node-r", 5000), StringCodec.INSTANCE)
                .addAllAsync(crowded);
        batch.execute();
        long start = System.nanoTime();
        List<NodeRouteIndex.Entry> read = indexOf("node-r");
        long slotsMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Set<String> ids = new HashSet<>();
        read.forEach(e -> ids.add(e.clientId()));
        assertEquals(routes + crowded.size(), read.size());
        assertEquals(read.size(), ids.size(), "an entry read twice");
        start = System.nanoTime();
        assertEquals(routes, indexOf("node-r1").size());
        long oneKeyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        start = System.nanoTime();
        assertEquals(0, indexOf("node-r2").size());
        long emptyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf(Locale.ROOT, "RedisClusterIT: a full read of a node's index of %d routes took %d ms from "
                + "its slots' keys (3 masters), %d ms from one key (the single key, then every slot empty); an "
                + "empty index %d ms%n", read.size(), slotsMillis, oneKeyMillis, emptyMillis);
        check().getKeys().delete(KEYS.nodeRoutes("node-r1"));
    }

    /**
     * Under a steady load of writes and deletes on every master, the master of one shard hangs (SIGSTOP: a dead host,
     * no connection reset) and is failed over: the one holding {@code mqttgw:node:{<node>}:*} (the heartbeat, and the
     * index of nodes of earlier versions, to which every write once added its entry first). No route write goes there
     * now but those of its own devices, so the writes for devices on the two healthy masters keep their latency, the
     * failed shard's writes resume on the promoted replica, and every device ends with its last route. Any other
     * shard's failover is the same case without the heartbeat (one test, for the suite's time). The node's heartbeat
     * fails until the replica is promoted; {@code node-ttl} is 60 s, so its key outlives the failover by far and no
     * other node's view of it (nor a resync for a lost key) takes part. The master hangs once the node's start-up
     * resync is done, so this is about the flushes alone; a resync under way when a master hangs is the next test's.
     */
    @Test
    @Order(10)
    void aFailoverOfTheShardHoldingTheNodesHeartbeatHoldsUpNoWriteOfTheOtherShards() throws Exception {
        String node = "node-h";
        int failShard = RedisClusterTopology.shard(cluster().slot("mqttgw:node:{" + node + "}:alive"));
        List<String> healthy = new ArrayList<>();
        List<String> failing = new ArrayList<>();
        for (int i = 0; healthy.size() < 40 || failing.size() < 20; i++) {
            String id = node + "-dev-" + i;
            int shard = RedisClusterTopology.shard(cluster().slot("mqttgw:route:{" + id + "}"));
            if (shard == failShard) {
                if (failing.size() < 20) {
                    failing.add(id);
                }
            } else if (healthy.size() < 40) {
                healthy.add(id);
            }
        }
        FakeNode events = new FakeNode();
        EventLogCapture resyncLog = new EventLogCapture(RouteResync.class.getName());
        // a write that waits for the dead master waits this long at least: far above what a loaded machine adds
        // to a healthy write (up to 2 s seen with six builds sharing two cores); the heartbeat key outlives the
        // failover of its own shard
        RedisRouteStore store = REDIS.start(node, events, "routes.redis.timeout", "10s", "routes.redis.node-ttl",
                "60s");
        List<String> devices = new ArrayList<>(healthy);
        devices.addAll(failing);
        RedisTestServer killed = null;
        int slotOfFailShard = cluster().slot("mqttgw:route:{" + failing.get(0) + "}");
        long failoverMillis;
        RouteLoad load = new RouteLoad(store, events, node, devices, Set.copyOf(healthy), REDIS.epochs());
        try {
            try {
                await("the start-up resync of " + node + " done", () -> resyncLog.lines().stream()
                        .anyMatch(l -> l.startsWith("resync of node " + node + " done")), 60);
            } finally {
                resyncLog.close();
            }
            Thread.sleep(2000);
            System.out.printf(Locale.ROOT,
                    "RedisClusterIT: before the kill the slowest healthy-shard route operation took %d ms%n",
                    load.reset());
            long killedAt = System.nanoTime();
            killed = cluster().freezeMasterOf(slotOfFailShard);
            System.out.printf(Locale.ROOT,
                    "RedisClusterIT: froze the master on port %d (shard %d), which holds the heartbeat of %s%n",
                    killed.port(), failShard, node);
            cluster().awaitFailover(slotOfFailShard, killed, 40);
            long promoted = System.nanoTime();
            failoverMillis = TimeUnit.NANOSECONDS.toMillis(promoted - killedAt);
            // the failed shard's pipeline times out (10 s) and is sent again once Redisson's topology scan (every
            // 5 s) found the new master: the load goes on until that shard's writes flow again
            await("a write of the failed shard acknowledged by its promoted replica",
                    () -> load.anyWrittenSince(failing, promoted), 60);
        } finally {
            load.close();
            if (killed != null) {
                cluster().restart(killed, 60);
            }
        }
        everyDeviceEndsWithItsLastRoute(load);
        long maxMillis = load.maxMillis();
        System.out.printf(Locale.ROOT,
                "RedisClusterIT: failover of shard %d (the node's heartbeat shard) took %d ms; route operations "
                + "for devices on the healthy masters from the kill on: %d in all, slowest %d ms, %d over 500 ms%n",
                failShard, failoverMillis, load.ops(), maxMillis, load.slow());
        assertTrue(maxMillis < 5000, "a route operation for a healthy master waited " + maxMillis
                + " ms for the failed shard");
    }

    /**
     * A resync that meets a master that hangs (frozen, then failed over) holds up no write of the other masters: the
     * flusher does not wait for a resync's exchanges, and a chunk of its writes is of one shard. The resync is asked
     * for by deleting the node's heartbeat key once the master hangs (to the node, Redis lost data); the hung shard
     * holds live routes of the node but none of the devices the load writes, so the flusher keeps reaching the moments
     * between flushes where a resync chunk starts. Before, the flusher waited for each chunk: one that reached the hung
     * shard held every write of the node up for the route timeout (10 s here).
     */
    @Test
    @Order(11)
    void aResyncThatMeetsAHungMasterHoldsUpNoWriteOfTheOtherShards() throws Exception {
        String node = "node-q";
        int hungShard = (RedisClusterTopology.shard(cluster().slot("mqttgw:node:{" + node + "}:alive")) + 1) % 3;
        List<String> healthy = new ArrayList<>();
        List<String> onHung = new ArrayList<>();
        for (int i = 0; healthy.size() < 40 || onHung.size() < 50; i++) {
            String id = node + "-dev-" + i;
            if (RedisClusterTopology.shard(cluster().slot("mqttgw:route:{" + id + "}")) == hungShard) {
                if (onHung.size() < 50) {
                    onHung.add(id);
                }
            } else if (healthy.size() < 40) {
                healthy.add(id);
            }
        }
        FakeNode events = new FakeNode();
        onHung.forEach(id -> events.live.put(id, REDIS.route(id, node)));
        SimpleMeterRegistry meters = TestRouteStores.meters();
        EventLogCapture resyncLog = new EventLogCapture(RouteResync.class.getName());
        RedisRouteStore store;
        try {
            store = REDIS.start(node, events, meters, "routes.redis.timeout", "10s", "routes.redis.node-ttl", "60s");
            await("the start-up resync of " + node + " done", () -> resyncLog.lines().stream()
                    .anyMatch(l -> l.startsWith("resync of node " + node + " done")), 60);
        } finally {
            resyncLog.close();
        }
        RedisTestServer hung = null;
        RouteLoad load = new RouteLoad(store, events, node, healthy, Set.copyOf(healthy), REDIS.epochs());
        try {
            Thread.sleep(1000);
            load.reset();
            hung = cluster().freezeMasterOf(cluster().slot("mqttgw:route:{" + onHung.get(0) + "}"));
            check().getKeys().delete(KEYS.alive(node));
            await("a resync asked for by the lost heartbeat key",
                    () -> meters.get("mqttgw.routes.redis.resyncs").counter().count() >= 2, 30);
            // longer than the route timeout: a flusher waiting for the resync's chunk would hold writes this long
            Thread.sleep(12_000);
        } finally {
            load.close();
            if (hung != null) {
                cluster().restart(hung, 60);
            }
        }
        everyDeviceEndsWithItsLastRoute(load);
        long maxMillis = load.maxMillis();
        System.out.printf(Locale.ROOT, "RedisClusterIT: a resync met the hung master of shard %d; route operations "
                + "for devices on the other masters meanwhile: %d in all, slowest %d ms, %d over 500 ms%n",
                hungShard, load.ops(), maxMillis, load.slow());
        assertTrue(maxMillis < 5000, "a route operation for a healthy master waited " + maxMillis
                + " ms for a resync's chunk on the hung one");
    }

    @Test
    @Order(12)
    void aSessionStoreClosedDuringAFailoverFinishesInTimeAndEverySessionKeepsItsExpiry() throws Exception {
        SessionCloseAroundFailover.assertClosedInTimeWithEveryExpiry(REDIS, "during", false);
    }

    @Test
    @Order(13)
    void aSessionStoreClosedRightAfterAFailoverFinishesInTimeAndEverySessionKeepsItsExpiry() throws Exception {
        SessionCloseAroundFailover.assertClosedInTimeWithEveryExpiry(REDIS, "after", true);
    }
}
