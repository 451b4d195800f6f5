package io.mqttgw.routing.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.redis.RedisRouteSettings;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Time to flush a storm of route deletes to a local redis-server: the store's pipelined flusher against one fenced
 * delete script per device, each waited for (what a thread per disconnect would do); and the time one remove()
 * takes on the caller's thread, which is all an event loop pays per disconnect. Not part of the build:
 * <pre>
 * java -cp ... io.mqttgw.routing.bench.RouteTableBenchmark [devices] [rounds]
 * </pre>
 */
public final class RouteTableBenchmark {
    /** The route delete the store pipelines, sent alone (same Lua as {@code RouteScripts.DELETE}). */
    private static final String DELETE = """
            local cur = redis.call('HMGET', KEYS[1], 'node', 'epoch')
            if cur[1] == ARGV[1] and cur[2] == ARGV[2] then
              redis.call('DEL', KEYS[1])
              return 1
            end
            return 0
            """;

    public static void main(String[] args) throws Exception {
        int devices = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path dir = Files.createTempDirectory("route-bench");
        System.out.printf(Locale.ROOT, "JDK %s (%s), %d cores, %d devices, %d rounds%n",
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors(), devices, rounds);
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient check = TestRouteStores.checker(redis);
            try {
                for (int round = 1; round <= rounds; round++) {
                    check.getKeys().flushall();
                    pipelined(redis, devices, round);
                    check.getKeys().flushall();
                    oneByOne(redis, check, devices, round);
                }
            } finally {
                check.shutdown();
            }
        }
    }

    static List<Route> routes(String node, int devices, long base) {
        List<Route> routes = new ArrayList<>(devices);
        for (int i = 0; i < devices; i++) {
            routes.add(new Route("bench-" + i, node, base + i, System.currentTimeMillis(), "/10.0.0.1:40000"));
        }
        return routes;
    }

    static void pipelined(RedisTestServer redis, int devices, int round) throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RedisRouteSettings settings = TestRouteStores.settings(redis, "routes.redis.queue-capacity", "262144",
                "routes.redis.batch-size", "1000", "routes.redis.flush-interval", "10ms", "routes.redis.timeout",
                "10s");
        RedisRouteStore store = TestRouteStores.store(settings, "node-a", meters);
        FakeNode node = new FakeNode();
        List<Route> routes = routes("node-a", devices, System.currentTimeMillis() * 1000);
        routes.forEach(r -> node.live.put(r.clientId(), r));
        store.start(node);
        try {
            List<CompletableFuture<Void>> writes = new ArrayList<>(devices);
            routes.forEach(r -> writes.add(store.put(r).toCompletableFuture()));
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            TestRouteStores.await("resync idle", () -> store.queued() == 0, 30);
            Thread.sleep(500);
            long batchesBefore = TestRouteStores.batches(meters);

            node.live.clear();
            long[] enqueueNanos = new long[devices];
            List<CompletableFuture<Void>> deletes = new ArrayList<>(devices);
            long start = System.nanoTime();
            for (int i = 0; i < devices; i++) {
                long t0 = System.nanoTime();
                CompletableFuture<Void> f = store.remove(routes.get(i)).toCompletableFuture();
                enqueueNanos[i] = System.nanoTime() - t0;
                deletes.add(f);
            }
            long enqueued = System.nanoTime();
            CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            long done = System.nanoTime();
            Arrays.sort(enqueueNanos);
            System.out.printf(Locale.ROOT,
                    "round %d pipelined: %d deletes stored in %.0f ms (enqueue of all: %.1f ms); "
                            + "%d pipelines; deleted %.0f; remove() per call: mean %.0f ns, p50 %d ns, p99 %d ns,"
                            + " max %d ns%n", round, devices, (done - start) / 1e6, (enqueued - start) / 1e6,
                    TestRouteStores.batches(meters) - batchesBefore, TestRouteStores.ops(meters, "delete",
                            "deleted"), Arrays.stream(enqueueNanos).average().orElse(0),
                    enqueueNanos[devices / 2], enqueueNanos[(int) (devices * 0.99)], enqueueNanos[devices - 1]);
        } finally {
            store.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    static void oneByOne(RedisTestServer redis, RedissonClient check, int devices, int round) throws Exception {
        List<Route> routes = routes("node-a", devices, System.currentTimeMillis() * 1000);
        // write them with the store, so the data is the same as above
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis, "routes.redis.queue-capacity",
                "262144", "routes.redis.timeout", "10s"), "node-a", meters);
        FakeNode node = new FakeNode();
        routes.forEach(r -> node.live.put(r.clientId(), r));
        store.start(node);
        List<CompletableFuture<Void>> writes = new ArrayList<>(devices);
        routes.forEach(r -> writes.add(store.put(r).toCompletableFuture()));
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        Thread.sleep(500);

        RScript script = check.getScript(StringCodec.INSTANCE);
        String sha = script.scriptLoad(DELETE);
        long deleted = 0;
        long start = System.nanoTime();
        for (Route r : routes) {
            Long result = script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LONG,
                    List.of("mqttgw:route:{" + r.clientId() + "}"), r.nodeId(), Long.toString(r.epoch()));
            deleted += result;
        }
        long done = System.nanoTime();
        System.out.printf(Locale.ROOT,
                "round %d one command per delete: %d deletes in %.0f ms (%.1f us each); deleted %d%n",
                round, devices, (done - start) / 1e6, (done - start) / 1e3 / devices, deleted);
        node.live.clear();
        store.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
