package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import io.netty.util.ResourceLeakDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Which node is dead, against a real redis-server: Redis losing the heartbeat keys (emptied, restarted from a snapshot
 * in which they had expired) must never make live nodes remove each other's routes, and a node that really stopped
 * is still cleaned up, once. Node a looks for dead nodes every 100 ms and node b refreshes its heartbeat every
 * 1.2 s, so a rule that takes a missing key for a dead node has node a remove node b's routes in most rounds.
 */
class NodeLivenessIT extends RedisServerTests {
    static final String TTL = "4s";
    static final long TTL_MS = 4000;
    static final int ROUTES = 200;

    final List<RedisRouteStore> stores = new ArrayList<>();
    final List<RedissonClient> clients = new ArrayList<>();
    final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);

    @BeforeEach
    void emptyRedis() {
        redis.deleteSnapshot();
        redis.start();
        check.getKeys().flushall();
    }

    @AfterEach
    void closeStores() throws Exception {
        redis.deleteSnapshot();
        redis.start();
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        clients.forEach(RedissonClient::shutdown);
    }

    /** A node and its route store, with its own Redis client so a test can cut it off as a crash would. */
    final class Node {
        final String id;
        final FakeNode events = new FakeNode();
        final SimpleMeterRegistry meters = TestRouteStores.meters();
        final RedissonClient client;
        final RedisRouteStore store;
        final List<String> clientIds = new ArrayList<>();

        Node(String id, String heartbeat) {
            this.id = id;
            RedisRouteSettings settings = TestRouteStores.settings(redis, "routes.redis.heartbeat-interval", heartbeat,
                    "routes.redis.node-ttl", TTL);
            client = Redisson.create(settings.redissonConfig("test-" + id));
            clients.add(client);
            store = new RedisRouteStore(settings, id, Duration.ofSeconds(5), client, meters);
            stores.add(store);
            store.start(events);
        }

        /** Connects {@code n} devices: live in the node's registry, then their routes written. */
        void connect(int n) throws Exception {
            List<java.util.concurrent.CompletableFuture<Void>> written = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Route r = new Route(id + "-dev-" + i, id, epochs.incrementAndGet(), System.currentTimeMillis(),
                        "127.0.0.1:40000");
                clientIds.add(r.clientId());
                events.live.put(r.clientId(), r);
                written.add(store.put(r).toCompletableFuture());
            }
            for (var f : written) {
                f.get(30, TimeUnit.SECONDS);
            }
        }

        /** How many of this node's devices the table routes to it now. */
        int routed() {
            List<Object> keys = new ArrayList<>(clientIds.size());
            clientIds.forEach(c -> keys.add("mqttgw:route:{" + c + "}"));
            Long n = check.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_ONLY,
                    "local n = 0 for _, k in ipairs(KEYS) do"
                            + " if redis.call('HGET', k, 'node') == ARGV[1] then n = n + 1 end end return n",
                    RScript.ReturnType.LONG, keys, id);
            return n.intValue();
        }

        double deadNodes() {
            return meters.get("mqttgw.routes.redis.dead.nodes").counter().count();
        }

        double deadNodeRoutes() {
            return meters.get("mqttgw.routes.redis.dead.node.routes").counter().count();
        }

        boolean heartbeatAnswered() {
            return meters.get("mqttgw.routes.redis.heartbeats").tag("result", "ok").counter().count() > 0;
        }
    }

    /** Two live nodes with their devices routed, both heartbeats in Redis. */
    List<Node> twoLiveNodes() throws Exception {
        Node a = new Node("node-a", "100ms");
        Node b = new Node("node-b", "1200ms");
        a.connect(ROUTES);
        b.connect(ROUTES);
        await("both heartbeats written", () -> check.getKeys().countExists("mqttgw:node:{node-a}:alive",
                "mqttgw:node:{node-b}:alive") == 2, 15);
        await("all routes written", () -> a.routed() == ROUTES && b.routed() == ROUTES, 15);
        return List.of(a, b);
    }

    /**
     * For {@code millis}, every check of the table finds each node's devices all routed to it (checks while the
     * checking client reconnects are skipped).
     */
    static void neverLoseARoute(List<Node> nodes, long millis) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        int checks = 0;
        while (System.nanoTime() - end < 0) {
            for (Node n : nodes) {
                int routed;
                try {
                    routed = n.routed();
                } catch (RuntimeException e) {
                    continue;
                }
                checks++;
                assertEquals(n.clientIds.size(), routed, "routes of live " + n.id + " removed");
            }
            Thread.sleep(20);
        }
        assertTrue(checks > 10, "the table was checked only " + checks + " times");
    }

    /**
     * Runs a crash (a Redis server killed, a client cut off) with Netty's leak tracking off for the buffers allocated
     * around it: Redisson drops, without releasing them, the encoded arguments of a pipeline that a dying connection
     * cut off mid-write, which is not what this class tests. Buffers allocated before and after stay tracked.
     */
    static void crash(Runnable crash) throws InterruptedException {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            // what is being encoded now was allocated while tracked: let it reach Redis first
            Thread.sleep(300);
            crash.run();
            Thread.sleep(300);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    static void noneDeclaredDead(List<Node> nodes) {
        for (Node n : nodes) {
            assertEquals(0, n.deadNodes(), n.id + " took a live node for dead");
            assertEquals(0, n.deadNodeRoutes(), n.id + " removed routes as a dead node's");
        }
    }

    @Test
    void liveNodesKeepEachOthersRoutesWhenRedisLosesOnlyTheHeartbeatKeys() throws Exception {
        List<Node> nodes = twoLiveNodes();
        // a full time to live of observation first: a node that just started has not yet watched the others
        Thread.sleep(TTL_MS + 500);
        for (int round = 0; round < 3; round++) {
            check.getKeys().delete("mqttgw:node:{node-a}:alive", "mqttgw:node:{node-b}:alive");
            neverLoseARoute(nodes, 2000);
        }
        neverLoseARoute(nodes, 2 * TTL_MS);
        assertEquals(2, check.getKeys().countExists("mqttgw:node:{node-a}:alive", "mqttgw:node:{node-b}:alive"),
                "live nodes write their heartbeat keys again");
        noneDeclaredDead(nodes);
    }

    @Test
    void liveNodesKeepEachOthersRoutesWhenRedisRestartsFromASnapshotWhoseHeartbeatsExpired() throws Exception {
        List<Node> nodes = twoLiveNodes();
        Thread.sleep(TTL_MS + 500);
        redis.saveSnapshot();
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            Thread.sleep(300);
            redis.stop();
            // down past the heartbeats' time to live: the snapshot's keys have expired when Redis loads it
            Thread.sleep(TTL_MS + 1000);
            redis.start();
            // the clients' pipelines cut off by the kill fail as they reconnect
            await("both nodes' heartbeats answered again", () -> check.getKeys().countExists(
                    "mqttgw:node:{node-a}:alive", "mqttgw:node:{node-b}:alive") == 2, 15);
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        neverLoseARoute(nodes, 2 * TTL_MS + 1000);
        noneDeclaredDead(nodes);
    }

    @Test
    void liveNodesRewriteTheirRoutesAndRemoveNoneWhenRedisIsEmptied() throws Exception {
        List<Node> nodes = twoLiveNodes();
        Thread.sleep(TTL_MS + 500);
        check.getKeys().flushall();
        await("both nodes' routes written again", () -> nodes.stream().allMatch(n -> n.routed() == ROUTES), 20);
        neverLoseARoute(nodes, 2 * TTL_MS + 1000);
        assertTrue(check.getSet("mqttgw:nodes", StringCodec.INSTANCE).containsAll(List.of("node-a", "node-b")));
        noneDeclaredDead(nodes);
    }

    @Test
    void aNodeThatStoppedIsCleanedUpAfterItsTtlByExactlyOneSurvivor() throws Exception {
        List<Node> survivors = twoLiveNodes();
        Node dying = new Node("node-c", "100ms");
        dying.connect(100);
        await("node c's heartbeat written", () -> check.getKeys().countExists("mqttgw:node:{node-c}:alive") == 1
                && dying.heartbeatAnswered(), 15);
        // wait until both survivors have watched node c's heartbeat advance
        Thread.sleep(TTL_MS + 500);

        // a crash as Redis sees it: no more heartbeats, no clean-up of its routes
        AtomicLong killed = new AtomicLong();
        crash(() -> {
            killed.set(System.nanoTime());
            dying.client.shutdown(0, 0, TimeUnit.SECONDS);
        });
        assertEquals(100, dying.routed(), "node c's routes were removed before its heartbeat's time to live ran out");

        await("node c's routes removed", () -> dying.routed() == 0, 30);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed.get());
        // its last heartbeat came up to one interval (100 ms) before the cut, and counts from there
        assertTrue(tookMs >= TTL_MS - 500, "cleaned " + tookMs + " ms after the crash, before the time to live");
        await("the cleanup counted", () -> survivors.stream().mapToDouble(Node::deadNodes).sum() == 1, 10);
        // one more time to live: no second survivor cleans the same node again
        neverLoseARoute(survivors, TTL_MS + 500);
        assertEquals(1, survivors.stream().mapToDouble(Node::deadNodes).sum(), "node c cleaned more than once");
        assertEquals(100, survivors.stream().mapToDouble(Node::deadNodeRoutes).sum());
        assertFalse(check.getSet("mqttgw:nodes", StringCodec.INSTANCE).contains("node-c"));
        assertEquals(0, check.getScoredSortedSet("mqttgw:node:{node-c}:routes", StringCodec.INSTANCE).size());
    }
}
