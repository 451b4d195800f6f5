package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

class RedisRouteSettingsTest {
    @Test
    void defaultsMakeAStandaloneClientOnTheLocalRedis() {
        RedisRouteSettings s = RedisRouteSettings.from(TestRouteStores.values(null));
        assertEquals(List.of("redis://127.0.0.1:6379"), s.addresses());
        Config c = s.redissonConfig("n");
        assertTrue(c.isSingleConfig());
        assertEquals(2, c.getNettyThreads());
    }

    @Test
    void hostAndPortWithoutSchemeMeansRedis() {
        RedisRouteSettings s = RedisRouteSettings.from(TestRouteStores.values(null, "routes.redis.mode", "cluster",
                "routes.redis.address", "10.0.0.1:7000, rediss://10.0.0.2:7000"));
        assertEquals(List.of("redis://10.0.0.1:7000", "rediss://10.0.0.2:7000"), s.addresses());
        assertTrue(s.redissonConfig("n").isClusterConfig());
    }

    @Test
    void sentinelAndClusterReadFromTheMasterNotFromAReplicaThatMayLag() {
        RedisRouteSettings cluster = RedisRouteSettings.from(TestRouteStores.values(null, "routes.redis.mode",
                "cluster", "routes.redis.address", "10.0.0.1:7000"));
        assertEquals(ReadMode.MASTER, cluster.redissonConfig("n").useClusterServers().getReadMode());
        RedisRouteSettings sentinel = RedisRouteSettings.from(TestRouteStores.values(null, "routes.redis.mode",
                "sentinel", "routes.redis.address", "10.0.0.1:26379", "routes.redis.sentinel-master", "m"));
        assertEquals(ReadMode.MASTER, sentinel.redissonConfig("n").useSentinelServers().getReadMode());
    }

    @Test
    void noReceiverOfAForwardedRequestMeansNobodyListensOnAStandaloneServerOnly() {
        assertTrue(RedisRouteStore.publishCountsEverySubscriber(RedisRouteSettings.from(TestRouteStores.values(null))));
        // Cluster counts the receiving node's subscribers only, Sentinel leaves a replica's uncounted
        assertFalse(RedisRouteStore.publishCountsEverySubscriber(RedisRouteSettings.from(TestRouteStores.values(null,
                "routes.redis.mode", "cluster", "routes.redis.address", "10.0.0.1:7000"))));
        assertFalse(RedisRouteStore.publishCountsEverySubscriber(RedisRouteSettings.from(TestRouteStores.values(null,
                "routes.redis.mode", "sentinel", "routes.redis.address", "10.0.0.1:26379",
                "routes.redis.sentinel-master", "m"))));
    }

    @Test
    void sentinelModeWithoutAMasterNameNamesTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> RedisRouteSettings.from(
                TestRouteStores.values(null, "routes.redis.mode", "sentinel")));
        assertTrue(e.getMessage().startsWith("routes.redis.sentinel-master is required while routes.redis.mode is "
                + "sentinel"), e.getMessage());
    }

    @Test
    void delayedWillPollingAndForwardingBoundsAreReadAndValidated() {
        RedisRouteSettings defaults = RedisRouteSettings.from(TestRouteStores.values(null));
        assertEquals(java.time.Duration.ofSeconds(1), defaults.willPollInterval());
        assertEquals(256, defaults.willPollBatch());
        assertEquals(1000, defaults.forwardMaxInFlight());
        RedisRouteSettings set = RedisRouteSettings.from(TestRouteStores.values(null,
                "routes.redis.will-poll-interval", "250ms", "routes.redis.will-poll-batch", "10",
                "routes.redis.forward-max-in-flight", "5"));
        assertEquals(java.time.Duration.ofMillis(250), set.willPollInterval());
        assertEquals(10, set.willPollBatch());
        assertEquals(5, set.forwardMaxInFlight());
        for (String[] bad : new String[][] {{"routes.redis.will-poll-interval", "5ms"},
            {"routes.redis.will-poll-interval", "2m"}, {"routes.redis.will-poll-batch", "0"},
            {"routes.redis.forward-max-in-flight", "0"}}) {
            ConfigException e = assertThrows(ConfigException.class, () -> RedisRouteSettings.from(
                    TestRouteStores.values(null, bad[0], bad[1])), bad[0] + "=" + bad[1]);
            assertTrue(e.getMessage().startsWith(bad[0] + " = '" + bad[1] + "'"), e.getMessage());
        }
    }

    @Test
    void batchLargerThanTheQueueIsRefusedWithKeyValueAndWhatIsAllowed() {
        ConfigException e = assertThrows(ConfigException.class, () -> RedisRouteSettings.from(
                TestRouteStores.values(null, "routes.redis.queue-capacity", "2048", "routes.redis.batch-size",
                        "4096")));
        assertEquals("routes.redis.batch-size = '4096' (from system property -Dmqttgw.routes.redis.batch-size) is "
                + "above routes.redis.queue-capacity (2048); allowed: 1 to 100000, at most "
                + "routes.redis.queue-capacity", e.getMessage());
    }

    @Test
    void nodeTtlOfFewerThanThreeHeartbeatsIsRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> RedisRouteSettings.from(
                TestRouteStores.values(null, "routes.redis.heartbeat-interval", "5s", "routes.redis.node-ttl",
                        "10s")));
        assertTrue(e.getMessage().startsWith("routes.redis.node-ttl = '"), e.getMessage());
        assertTrue(e.getMessage().contains("shorter than three times routes.redis.heartbeat-interval (15000 ms)"));
    }

    @Test
    void severalAddressesInStandaloneModeAreRefused() {
        RedisRouteSettings s = RedisRouteSettings.from(TestRouteStores.values(null, "routes.redis.address",
                "a:1,b:2"));
        ConfigException e = assertThrows(ConfigException.class, () -> s.redissonConfig("n"));
        assertTrue(e.getMessage().contains("names 2 servers while routes.redis.mode is standalone"), e.getMessage());
    }

    @Test
    void aMissingRedissonFileIsRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> RedisRouteSettings.from(
                TestRouteStores.values(null, "routes.redis.config-file", "/nonexistent/redisson.yaml")));
        assertTrue(e.getMessage().startsWith("routes.redis.config-file = '/nonexistent/redisson.yaml'"),
                e.getMessage());
    }
}
