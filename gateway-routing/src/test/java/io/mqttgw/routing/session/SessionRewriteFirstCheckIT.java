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
 * The watch's first answer already counts: a device may connect, and its session be written, before the node's first
 * watch value is; a Redis emptied in between must still have that session written again.
 */
class SessionRewriteFirstCheckIT {
    @TempDir
    Path dir;

    @Test
    void rewritesTheSessionsConnectedBeforeTheFirstWatchValueWhenItIsMissing() throws Exception {
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient client = TestRouteStores.checker(redis);
            List<String> written = new CopyOnWriteArrayList<>();
            LiveSessions node = () -> CompletableFuture.completedFuture(List.of(new LiveSession("dev-early", 7,
                    Map.of())));
            // the session of dev-early was written, then Redis emptied, all before the watch's first check
            SessionRewrite rewrite = new SessionRewrite(client, RedisConnector.connected(client),
                    "mqttgw:sessions-watch:{first}", "run-1", Duration.ofMillis(100), Duration.ofSeconds(2), s -> {
                        written.add(s.sessionKey());
                        return CompletableFuture.completedFuture(1L);
                    });
            try {
                rewrite.start(node);
                await("the session connected before the first check written again", () -> !written.isEmpty(), 20);
                Thread.sleep(500);
                assertEquals(List.of("dev-early"), written, "written once, not at every check");
            } finally {
                rewrite.stop();
                client.shutdown();
            }
        }
    }
}
