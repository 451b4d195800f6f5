package io.mqttgw.routing.testkit;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;

/**
 * Base of the integration tests that need one real redis-server for the whole class and a client that reads what
 * the code under test wrote; started before the subclass's own {@code @BeforeAll}, stopped after its {@code @AfterAll}.
 */
public abstract class RedisServerTests {
    @TempDir
    protected static Path dir;
    protected static RedisTestServer redis;
    protected static RedissonClient check;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.start(dir.resolve("redis"));
        check = TestRouteStores.checker(redis);
    }

    @AfterAll
    static void stopRedis() {
        if (check != null) {
            check.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
