package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mqttgw.core.spi.LiveSessions;
import io.mqttgw.core.spi.LiveSessions.LiveSession;
import io.mqttgw.routing.redis.RedisConnector;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;

/**
 * When the watch decides Redis lost data. The first answer already counts: a device may connect, and its session be
 * written, before the node's first watch value is; a Redis emptied in between must still have that session written
 * again. A late answer does not: a watch write that timed out here but landed in Redis is no loss.
 */
class SessionRewriteFirstCheckIT {
    private static final LiveSessions NODE = () -> CompletableFuture.completedFuture(List.of(new LiveSession(
            "dev-early", 7, Map.of())));

    @TempDir
    Path dir;

    @Test
    void rewritesTheSessionsConnectedBeforeTheFirstWatchValueWhenItIsMissing() throws Exception {
        // the session of dev-early was written, then Redis emptied, all before the watch's first check
        watching("first", (redis, written) -> {
            await("the session connected before the first check written again", () -> !written.isEmpty(), 20);
            Thread.sleep(500);
            assertEquals(List.of("dev-early"), written, "written once, not at every check");
        });
    }

    @Test
    void takesNoLossForAWatchWriteThatTimedOutButLanded() throws Exception {
        watching("late", (redis, written) -> {
            await("the first check's rewrite", () -> !written.isEmpty(), 20);
            // the watch's timeout is 1.2 s here: a write held 2.5 s fails for the watch, then lands in Redis
            redis.pauseWrites(Duration.ofMillis(2500));
            Thread.sleep(5000);
            assertEquals(List.of("dev-early"), written, "no rewrite after a late answer");
        });
    }

    interface WatchCheck {
        void run(RedisTestServer redis, List<String> written) throws Exception;
    }

    /** Runs {@code check} while a watch of node {@code node} (on a fresh Redis) records the sessions it rewrites. */
    private void watching(String node, WatchCheck check) throws Exception {
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient client = TestRouteStores.checker(redis);
            List<String> written = new CopyOnWriteArrayList<>();
            SessionRewrite rewrite = rewrite(client, node, written);
            try {
                rewrite.start(NODE);
                check.run(redis, written);
            } finally {
                rewrite.stop();
                client.shutdown();
            }
        }
    }

    /** A watch checking every 100 ms, waiting 1.2 s per answer, recording the sessions it writes again. */
    private static SessionRewrite rewrite(RedissonClient client, String node, List<String> written) {
        return new SessionRewrite(client, RedisConnector.connected(client), "mqttgw:sessions-watch:{" + node + "}",
                "run-1", Duration.ofMillis(100), Duration.ofMillis(100), s -> {
                    written.add(s.sessionKey());
                    return CompletableFuture.completedFuture(1L);
                });
    }
}
