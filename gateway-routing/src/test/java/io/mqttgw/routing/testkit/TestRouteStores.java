package io.mqttgw.routing.testkit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.redis.RedisConfigKeys;
import io.mqttgw.routing.redis.RedisRouteSettings;
import io.mqttgw.routing.redis.RedisRouteStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Route stores on a test Redis without a gateway around them, and what a test checks them with. */
public final class TestRouteStores {
    private TestRouteStores() {
    }

    /** Settings with the test server's address, short timeouts and the given overrides (key, value, ...). */
    public static RedisRouteSettings settings(RedisTestServer redis, String... overrides) {
        return RedisRouteSettings.from(values(redis, overrides));
    }

    public static ConfigValues values(RedisTestServer redis, String... overrides) {
        Properties p = new Properties();
        if (redis != null) {
            p.setProperty("mqttgw.routes.redis.address", redis.address());
        }
        p.setProperty("mqttgw.routes.redis.timeout", "1s");
        p.setProperty("mqttgw.routes.redis.connect-timeout", "500ms");
        p.setProperty("mqttgw.routes.redis.retry-min-delay", "20ms");
        p.setProperty("mqttgw.routes.redis.retry-max-delay", "300ms");
        p.setProperty("mqttgw.routes.redis.flush-interval", "5ms");
        for (int i = 0; i < overrides.length; i += 2) {
            p.setProperty("mqttgw." + overrides[i], overrides[i + 1]);
        }
        return new ConfigLoader(ConfigLoader.withCoreKeys(RedisConfigKeys.ALL), List.of(), Map.of(), p).load(null);
    }

    /** Settings for Redis Cluster: every node's address, mode cluster, then the overrides. */
    public static RedisRouteSettings settings(RedisClusterTopology cluster, String... overrides) {
        return RedisRouteSettings.from(values(null, with(overrides, "routes.redis.mode", "cluster",
                "routes.redis.address", String.join(",", cluster.addresses()))));
    }

    /** Settings for Redis Sentinel: the sentinels' addresses and the master name, then the overrides. */
    public static RedisRouteSettings settings(RedisSentinelTopology sentinel, String... overrides) {
        return RedisRouteSettings.from(values(null, with(overrides, "routes.redis.mode", "sentinel",
                "routes.redis.address", String.join(",", sentinel.sentinelAddresses()),
                "routes.redis.sentinel-master", RedisSentinelTopology.MASTER_NAME)));
    }

    private static String[] with(String[] overrides, String... first) {
        String[] all = java.util.Arrays.copyOf(first, first.length + overrides.length);
        System.arraycopy(overrides, 0, all, first.length, overrides.length);
        return all;
    }

    /** A checking client for any topology: the route store's own client configuration, its own threads. */
    public static RedissonClient checker(RedisRouteSettings settings) {
        Config config = settings.redissonConfig("test-checker");
        config.setLazyInitialization(false);
        return Redisson.create(config);
    }

    public static RedisRouteStore store(RedisRouteSettings settings, String nodeId, MeterRegistry meters) {
        return store(settings, nodeId, meters, Duration.ofSeconds(5));
    }

    public static RedisRouteStore store(RedisRouteSettings settings, String nodeId, MeterRegistry meters,
                                        Duration shutdownTimeout) {
        return new RedisRouteStore(settings, nodeId, shutdownTimeout,
                Redisson.create(settings.redissonConfig("test-" + nodeId)), meters);
    }

    /** A plain client for checking what is in Redis, as a business service would read it. */
    public static RedissonClient checker(RedisTestServer redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.address()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2).setSubscriptionConnectionMinimumIdleSize(0).setTimeout(2000);
        config.setNettyThreads(1);
        config.setThreads(1);
        return Redisson.create(config);
    }

    public static SimpleMeterRegistry meters() {
        return new SimpleMeterRegistry();
    }

    public static double ops(MeterRegistry meters, String type, String result) {
        return meters.get("mqttgw.routes.redis.ops").tag("type", type).tag("result", result).counter().count();
    }

    public static long batches(MeterRegistry meters) {
        return meters.get("mqttgw.routes.redis.batch.size").summary().count();
    }

    /** Waits for {@code stage} (30 s at most: a loaded machine with a failover under way) and rethrows its failure. */
    public static void join(java.util.concurrent.CompletionStage<?> stage) throws Exception {
        stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    public static void await(String what, BooleanSupplier condition, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!holds(condition)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    private static boolean holds(BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (RuntimeException e) {
            return false; // e.g. the checking client still reconnecting to a restarted Redis
        }
    }

    /** The node side for a store without a gateway: live sessions a test sets, takeovers recorded. */
    public static final class FakeNode implements RouteEvents {
        public final Map<String, Route> live = new ConcurrentHashMap<>();
        public final List<String> takenOver = new CopyOnWriteArrayList<>();

        @Override
        public void takenOver(String clientId, long epoch) {
            Route r = live.get(clientId);
            if (r != null && r.epoch() == epoch) {
                live.remove(clientId);
            }
            takenOver.add(clientId + "@" + epoch);
        }

        @Override
        public void forEachLiveRoute(Consumer<Route> action) {
            live.values().forEach(action);
        }
    }
}
