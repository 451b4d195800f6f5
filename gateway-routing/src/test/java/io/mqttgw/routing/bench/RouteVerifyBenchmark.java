package io.mqttgw.routing.bench;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.routing.redis.RedisRouteSettings;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How long a route table check ({@code POST /routes/verify}) takes against a local redis-server: the checking node
 * holds {@code own} devices, another node {@code others}, so the check reads its own routes and index and scans every
 * route key. Not part of the build:
 * <pre>
 * java -cp ... io.mqttgw.routing.bench.RouteVerifyBenchmark [own] [others] [rounds]
 * </pre>
 */
public final class RouteVerifyBenchmark {
    private RouteVerifyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int own = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int others = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path dir = Files.createTempDirectory("verify-bench");
        System.out.printf(Locale.ROOT, "JDK %s, %d cores, %d own devices, %d of another node, %d rounds%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), own, others, rounds);
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedisRouteSettings settings = TestRouteStores.settings(redis, "routes.redis.heartbeat-interval", "1s",
                    "routes.redis.queue-capacity", "1048576");
            FakeNode nodeA = new FakeNode();
            FakeNode nodeB = new FakeNode();
            RedisRouteStore a = TestRouteStores.store(settings, "bench-a", TestRouteStores.meters());
            RedisRouteStore b = TestRouteStores.store(settings, "bench-b", TestRouteStores.meters());
            a.start(nodeA);
            b.start(nodeB);
            try {
                connect(a, nodeA, "bench-a", own);
                connect(b, nodeB, "bench-b", others);
                for (int round = 1; round <= rounds; round++) {
                    long start = System.nanoTime();
                    RouteCheck check = a.verify(false).toCompletableFuture().get(120, TimeUnit.SECONDS);
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    System.out.printf(Locale.ROOT, "round %d: %d ms (check's own figure %d ms), live %d, indexed %d, "
                            + "scanned %d, differences %d, complete %s%n", round, ms, check.tookMillis(),
                            check.live(), check.indexed(), check.scanned(), check.found(), check.complete());
                }
            } finally {
                a.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
                b.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static void connect(RedisRouteStore store, FakeNode node, String id, int devices) throws Exception {
        long epoch = System.currentTimeMillis() * 1000;
        List<CompletableFuture<Void>> written = new ArrayList<>(devices);
        for (int i = 0; i < devices; i++) {
            Route r = new Route(id + "-dev-" + i, id, ++epoch, System.currentTimeMillis(), "127.0.0.1:40000");
            node.live.put(r.clientId(), r);
            written.add(store.put(r).toCompletableFuture());
        }
        for (CompletableFuture<Void> f : written) {
            f.get(120, TimeUnit.SECONDS);
        }
    }
}
