package io.mqttgw.routing.testkit;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.redis.RedisRouteSettings;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A Redis topology (Cluster, Sentinel) for a whole test class, registered as a static
 * {@code @RegisterExtension} field: started before the class's tests with a client that reads what the code under
 * test wrote, stopped after them. The route stores a test starts through {@link #start} are closed after that test,
 * so each test begins with none running while the expensive topology is shared.
 *
 * @param <T> the topology's type, which the tests use to fail over its nodes
 */
public final class RedisTopologyExtension<T extends AutoCloseable>
        implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private final String name;
    private final Function<Path, T> starter;
    private final BiFunction<T, String[], RedisRouteSettings> settings;
    private final List<RedisRouteStore> stores = new CopyOnWriteArrayList<>();
    private final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);
    private Path dir;
    private T topology;
    private RedissonClient check;

    private RedisTopologyExtension(String name, Function<Path, T> starter,
                                   BiFunction<T, String[], RedisRouteSettings> settings) {
        this.name = name;
        this.starter = starter;
        this.settings = settings;
    }

    /** A Redis Cluster of 3 masters and 3 replicas. */
    public static RedisTopologyExtension<RedisClusterTopology> cluster() {
        return new RedisTopologyExtension<>("cluster", RedisClusterTopology::start, TestRouteStores::settings);
    }

    /** A Redis Sentinel set-up: 1 master, 1 replica, 3 sentinels. */
    public static RedisTopologyExtension<RedisSentinelTopology> sentinel() {
        return new RedisTopologyExtension<>("sentinel", RedisSentinelTopology::start, TestRouteStores::settings);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("mqttgw-redis-" + name);
        topology = starter.apply(dir);
        // connects at once (the stores connect lazily): the tests' 500 ms timed out once on a loaded machine
        check = TestRouteStores.checker(settings("routes.redis.connect-timeout", "5s"));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        stores.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (check != null) {
                check.shutdown();
            }
            if (topology != null) {
                topology.close();
            }
        } finally {
            deleteTree(dir);
        }
    }

    public T topology() {
        return topology;
    }

    /** A client of its own that reads what the stores wrote (from the masters, like the stores). */
    public RedissonClient check() {
        return check;
    }

    /** The route store's settings for this topology, with short test timeouts and {@code overrides} (key, value...). */
    public RedisRouteSettings settings(String... overrides) {
        return settings.apply(topology, overrides);
    }

    /** Starts a route store for {@code node} reporting to {@code events}; closed after the test. */
    public RedisRouteStore start(String node, FakeNode events, String... overrides) {
        return start(node, events, TestRouteStores.meters(), overrides);
    }

    /** As {@link #start(String, FakeNode, String...)}, its meters in {@code meters}. */
    public RedisRouteStore start(String node, FakeNode events, MeterRegistry meters, String... overrides) {
        RedisRouteStore store = TestRouteStores.store(settings(overrides), node, meters);
        stores.add(store);
        store.start(events);
        return store;
    }

    /** Closes {@code store} now (a test of what a clean shutdown leaves behind). */
    public CompletionStage<Void> close(RedisRouteStore store) {
        stores.remove(store);
        return store.close();
    }

    /** The source of route epochs, increasing across the class's tests. */
    public AtomicLong epochs() {
        return epochs;
    }

    /** A route of {@code clientId} to {@code node} with the next epoch. */
    public Route route(String clientId, String node) {
        return new Route(clientId, node, epochs.incrementAndGet(), System.currentTimeMillis(), "127.0.0.1:40000");
    }

    /** The route hash of {@code clientId} as Redis holds it now (empty when there is none). */
    public Map<String, String> hgetall(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    private static void deleteTree(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
