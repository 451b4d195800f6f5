package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** The retained-message scan script against a real redis-server: each call does a bounded step of the scan. */
class RetainedScanIT {
    private static final String KEY = "scan-it:retained";

    @TempDir
    static Path dir;
    static RedisTestServer redis;
    static RedissonClient check;

    @BeforeAll
    static void start() {
        redis = RedisTestServer.start(dir.resolve("redis"));
        check = TestRouteStores.checker(redis);
        Map<String, String> topics = new HashMap<>();
        for (int i = 0; i < 5000; i++) {
            topics.put("bulk/" + i + "/config", "m" + i);
        }
        check.<String, String>getMap(KEY, StringCodec.INSTANCE).putAll(topics);
    }

    @AfterAll
    static void stop() {
        if (check != null) {
            check.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static List<String> step(String cursor, int count) {
        return check.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_ONLY, SessionScripts.RETAINED,
                RScript.ReturnType.LIST, List.of(KEY), "bulk/+/config", "bulk/*/config", "100000", cursor,
                Integer.toString(count));
    }

    @Test
    void oneCallScansOneBoundedStepAndAnswersTheCursorToGoOnFrom() {
        List<String> first = step("0", 10);
        assertNotEquals("0", first.get(0), "a cursor to go on from: the call did not scan the whole hash");
        assertTrue(first.size() - 1 < 100, "one step's matches, not the hash's 5000: " + (first.size() - 1));
    }

    @Test
    void followingTheCursorFindsEveryMatchOnce() {
        Set<String> found = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            List<String> r = step(cursor, 500);
            cursor = r.get(0);
            found.addAll(r.subList(1, r.size()));
            calls++;
        } while (!"0".equals(cursor));
        assertEquals(5000, found.size());
        assertTrue(calls > 1, "several bounded calls, not one");
    }
}
