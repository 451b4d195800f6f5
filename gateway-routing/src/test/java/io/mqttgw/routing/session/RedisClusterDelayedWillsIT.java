package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.routing.redis.RedisRouteSettings;
import io.mqttgw.routing.testkit.RedisClusterTopology;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Delayed wills on a real Redis Cluster (3 masters, 3 replicas): every will script touches one slot, so wills and
 * due indexes on every master are armed, cancelled by a resume and claimed once without a CROSSSLOT error.
 */
class RedisClusterDelayedWillsIT {
    @TempDir
    static Path dir;
    static RedisClusterTopology cluster;
    static RedissonClient check;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start(dir.resolve("cluster"));
        // the first cluster client and the store classes create their loggers here, on this thread: log4j's registry
        // lock, taken on Redisson's event loops while it builds a client's shards, is then never contended
        check = TestRouteStores.checker(TestRouteStores.settings(cluster));
        new RedisSessionStore(check, "warm-up", Duration.ofMinutes(1), 1, 1, false);
    }

    @AfterAll
    static void stopCluster() {
        if (check != null) {
            check.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    RedisSessionStore store(String name) {
        RedisRouteSettings settings = TestRouteStores.settings(cluster);
        return new RedisSessionStore(Redisson.create(settings.redissonConfig(name)), "mqttgw", Duration.ofMinutes(10),
                10, 10, true);
    }

    @Test
    void willsOnEveryMasterAreCancelledByAResumeOrPublishedOnce() throws Exception {
        RedisSessionStore a = store("wills-a");
        RedisSessionStore b = store("wills-b");
        RedisSessionStore c = store("wills-c");
        try {
            boolean[] willShards = new boolean[3];
            boolean[] indexShards = new boolean[3];
            SessionKeys keys = new SessionKeys("mqttgw");
            for (int g = 0; g < SessionKeys.WILL_GROUPS; g++) {
                indexShards[RedisClusterTopology.shard(cluster.slot(keys.willsDue(g)))] = true;
            }
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < 40; i++) {
                String id = "w-dev-" + i;
                willShards[RedisClusterTopology.shard(cluster.slot(keys.will(id)))] = true;
                assertEquals(cluster.slot(keys.session(id)), cluster.slot(keys.will(id)), "a will shares its slot");
                join(a.open(id, false, 600_000, 100 + i));
                join(a.disconnected(id, 100 + i, 600_000));
                assertEquals(DelayedWillStore.Armed.ARMED, join(a.delayedWills().orElseThrow().arm(id, 100 + i,
                        1500, new UplinkMessage(id, "devices/" + id + "/status", 1, false, new byte[] {1}, 1L))));
                if (i % 4 == 0) {
                    join(b.open(id, false, 600_000, 200 + i));
                } else {
                    expected.add(id);
                }
            }
            assertTrue(willShards[0] && willShards[1] && willShards[2], "the wills span every master");
            assertTrue(indexShards[0] && indexShards[1] && indexShards[2], "the due indexes span every master");
            ConcurrentLinkedQueue<UplinkMessage> published = new ConcurrentLinkedQueue<>();
            b.delayedWills().orElseThrow().start(published::add);
            c.delayedWills().orElseThrow().start(published::add);
            await("the wills not resumed published", () -> published.size() >= expected.size(), 30);
            Thread.sleep(2500);
            Map<String, Integer> times = new HashMap<>();
            published.forEach(m -> times.merge(m.clientId(), 1, Integer::sum));
            assertEquals(expected, times.keySet(), "the resumed ones never");
            assertEquals(expected.size(), published.size(), "each once");
            assertEquals(0, b.willPollFailureCount() + c.willPollFailureCount(), "no poll failed (CROSSSLOT)");
        } finally {
            for (RedisSessionStore s : new RedisSessionStore[] {a, b, c}) {
                join(s.close());
            }
        }
    }
}
