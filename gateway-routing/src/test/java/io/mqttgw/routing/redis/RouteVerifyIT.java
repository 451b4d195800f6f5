package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteCheck.Difference;
import io.mqttgw.core.spi.RouteCheck.Kind;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/** The route table check against a real redis-server, with two nodes' route stores and planted differences. */
class RouteVerifyIT extends RedisServerTests {
    final List<RedisRouteStore> stores = new ArrayList<>();
    final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);
    final FakeNode nodeA = new FakeNode();
    final FakeNode nodeB = new FakeNode();
    RedisRouteStore a;
    RedisRouteStore b;

    @BeforeEach
    void twoNodes() throws Exception {
        redis.start();
        check.getKeys().flushall();
        for (String id : List.of("a-1", "a-2", "a-3", "a-4")) {
            live(nodeA, "verify-a", id);
        }
        live(nodeB, "verify-b", "b-1");
        // the startup resync writes the live routes; once it has, nothing rewrites a route behind the test's back
        SimpleMeterRegistry metersA = TestRouteStores.meters();
        SimpleMeterRegistry metersB = TestRouteStores.meters();
        a = start("verify-a", nodeA, metersA);
        b = start("verify-b", nodeB, metersB);
        await("the startup resyncs wrote every live route", () -> resyncWritten(metersA) == 4
                && resyncWritten(metersB) == 1, 20);
        await("both nodes connected", () -> a.verify(false).toCompletableFuture().join() != null
                && b.verify(false).toCompletableFuture().join() != null, 20);
    }

    static double resyncWritten(SimpleMeterRegistry meters) {
        return meters.get("mqttgw.routes.redis.resync.routes").tag("result", "written").counter().count();
    }

    @AfterEach
    void closeStores() throws Exception {
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    RedisRouteStore start(String node, FakeNode events, SimpleMeterRegistry meters) {
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis,
                "routes.redis.heartbeat-interval", "200ms", "routes.redis.node-ttl", "30s"), node, meters);
        stores.add(store);
        store.start(events);
        return store;
    }

    /** A device the node holds before its store starts: the startup resync writes its route. */
    void live(FakeNode node, String nodeId, String clientId) {
        node.live.put(clientId, new Route(clientId, nodeId, epochs.incrementAndGet(), System.currentTimeMillis(),
                "127.0.0.1:40000"));
    }

    static Map<String, String> route(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    static void plant(String clientId, String node, long epoch) {
        check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).putAll(Map.of(
                "node", node, "epoch", Long.toString(epoch), "connected_at", "1", "remote", "10.0.0.1:1",
                "proof", "certificate"));
    }

    static RouteCheck verify(RedisRouteStore store, boolean repair) throws Exception {
        return store.verify(repair).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    static Map<String, Kind> kinds(RouteCheck check) {
        Map<String, Kind> out = new TreeMap<>();
        for (Difference d : check.differences()) {
            out.put(d.clientId(), d.kind());
        }
        return out;
    }

    /** The planted differences: what each of the two nodes must report. */
    void plantDifferences() {
        // a route naming node a for a device it does not hold, indexed as a's own writes are, and one not indexed
        plant("ghost-indexed", "verify-a", 5);
        check.getScoredSortedSet("mqttgw:node:{verify-a}:routes", StringCodec.INSTANCE).add(5, "ghost-indexed");
        plant("ghost-unindexed", "verify-a", 6);
        // a route naming a node that has no heartbeat (dead, never cleaned up)
        plant("orphan", "verify-gone", 7);
        // a live device of node a whose route was lost
        check.getKeys().delete("mqttgw:route:{a-2}");
        // a live device of node a whose route carries an older epoch
        check.<String, String>getMap("mqttgw:route:{a-3}", StringCodec.INSTANCE).put("epoch",
                Long.toString(nodeA.live.get("a-3").epoch() - 1));
        // node b holds a-4 as well (a stale session on a, or a takeover message lost)
        Route elsewhere = new Route("a-4", "verify-b", epochs.incrementAndGet(), System.currentTimeMillis(),
                "127.0.0.1:40001");
        plant("a-4", "verify-b", elsewhere.epoch());
        nodeB.live.put("a-4", elsewhere);
    }

    @Test
    void reportsPlantedStaleRoutesAndDeletedLiveRoute() throws Exception {
        RouteCheck clean = verify(a, false);
        assertEquals(List.of(), clean.differences(), "a clean table has no differences");
        assertEquals(4, clean.live());
        assertTrue(clean.complete());

        plantDifferences();
        RouteCheck onA = verify(a, false);
        assertEquals(Map.of("a-2", Kind.MISSING, "a-3", Kind.WRONG_EPOCH, "a-4", Kind.HELD_ELSEWHERE,
                "ghost-indexed", Kind.STALE, "ghost-unindexed", Kind.STALE, "orphan", Kind.DEAD_NODE), kinds(onA));
        assertEquals(6, onA.found());
        assertEquals(0, onA.repaired());
        assertEquals(7, onA.scanned(), "the scan read every route key: " + onA.scanned());
        assertTrue(route("a-2").isEmpty(), "a check without repair changes nothing");
        assertFalse(route("orphan").isEmpty());

        // node b holds none of a's devices but a-4: only the dead node's route concerns it
        assertEquals(Map.of("orphan", Kind.DEAD_NODE), kinds(verify(b, false)));
    }

    @Test
    void repairRewritesMissingRoutesAndDeletesStaleOnes() throws Exception {
        plantDifferences();
        RouteCheck repaired = verify(a, true);
        assertEquals(5, repaired.repaired(), repaired.toString());
        for (Difference d : repaired.differences()) {
            assertEquals(d.kind() != Kind.HELD_ELSEWHERE, d.repaired(), d.toString());
        }
        assertEquals("verify-a", route("a-2").get("node"));
        assertEquals(Long.toString(nodeA.live.get("a-3").epoch()), route("a-3").get("epoch"));
        assertTrue(route("ghost-indexed").isEmpty());
        assertTrue(route("ghost-unindexed").isEmpty());
        assertTrue(route("orphan").isEmpty());
        assertEquals("verify-b", route("a-4").get("node"), "another live node's route is never taken by a repair");
        assertEquals(Map.of("a-4", Kind.HELD_ELSEWHERE), kinds(verify(a, false)));
    }

    @Test
    void refusesASecondCheckWhileOneRuns() throws Exception {
        check.getKeys().delete("mqttgw:route:{a-1}");
        CompletableFuture<RouteCheck> first = a.verify(false).toCompletableFuture();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> a.verify(false).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(RouteCheck.AlreadyRunning.class, e.getCause());
        assertEquals(Map.of("a-1", Kind.MISSING), kinds(first.get(60, TimeUnit.SECONDS)));
    }
}
