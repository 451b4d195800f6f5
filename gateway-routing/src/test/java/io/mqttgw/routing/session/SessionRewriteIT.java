package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.SessionStore.SessionSummary;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Redis emptied (FLUSHALL, or a restart without persistence) under a node with connected persistent devices: the node
 * writes their routes and their sessions again, so a device that reconnects later finds its subscriptions.
 */
class SessionRewriteIT {
    @TempDir
    Path dir;

    private Gateway node(RedisTestServer redis, TestPki pki, String id) {
        return TestGateway.tls(pki, dir.resolve(id)).with("node.id", id)
                .with("routes.provider", "redis").with("session.provider", "redis")
                .with("routes.redis.address", redis.address()).with("routes.redis.flush-interval", "5ms")
                .with("routes.redis.timeout", "2s").with("routes.redis.heartbeat-interval", "200ms")
                .with("acl.subscribe", "devices/{client-id}/#")
                .start();
    }

    private static Optional<SessionSummary> describe(Gateway node, String id) {
        return node.sessions().describe(id).toCompletableFuture().join();
    }

    @Test
    void rewritesTheSessionsOfConnectedDevicesAfterRedisWasEmptied() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient check = TestRouteStores.checker(redis);
            try (Gateway node = node(redis, pki, "rw-a")) {
                Mqtt3BlockingClient device = TestDevices.mutualTls(pki, node.tlsPort(), "dev-kept").buildBlocking();
                assertFalse(device.connectWith().cleanSession(false).send().isSessionPresent());
                device.subscribeWith().topicFilter("devices/dev-kept/commands").qos(MqttQos.AT_LEAST_ONCE).send();
                device.subscribeWith().topicFilter("devices/dev-kept/config").qos(MqttQos.AT_MOST_ONCE).send();
                Mqtt3BlockingClient clean = TestDevices.mutualTls(pki, node.tlsPort(), "dev-clean").buildBlocking();
                clean.connectWith().cleanSession(true).send();
                clean.subscribeWith().topicFilter("devices/dev-clean/commands").qos(MqttQos.AT_LEAST_ONCE).send();
                List<String> subscriptions = List.of("devices/dev-kept/commands", "devices/dev-kept/config");
                await("the session stored with both subscriptions", () -> describe(node, "dev-kept")
                        .map(s -> s.subscriptions().keySet().equals(new java.util.LinkedHashSet<>(subscriptions)))
                        .orElse(false), 20);

                long before = ((RedisSessionStore) node.sessions()).rewrittenCount();
                check.getKeys().flushall();

                await("the connected device's session written again", () -> describe(node, "dev-kept")
                        .map(s -> s.connected() && List.copyOf(s.subscriptions().keySet()).equals(subscriptions))
                        .orElse(false), 30);
                SessionSummary back = describe(node, "dev-kept").orElseThrow();
                assertEquals(1, back.subscriptions().get("devices/dev-kept/commands").qos());
                assertEquals(0, back.subscriptions().get("devices/dev-kept/config").qos());
                await("its route written again", () -> check.getMap("mqttgw:route:{dev-kept}",
                        StringCodec.INSTANCE).isExists(), 30);
                assertTrue(describe(node, "dev-clean").isEmpty(), "a clean session is not persistent: not written");
                await("the rewrite counted", () -> ((RedisSessionStore) node.sessions()).rewrittenCount() > before,
                        10);

                // the rewritten session is the connection's own: it expires once the device leaves, and is resumed
                device.disconnect();
                await("the session expiring after the disconnect", () -> describe(node, "dev-kept")
                        .map(s -> !s.connected()).orElse(false), 20);
                Mqtt3BlockingClient again = TestDevices.mutualTls(pki, node.tlsPort(), "dev-kept").buildBlocking();
                assertTrue(again.connectWith().cleanSession(false).send().isSessionPresent(),
                        "the device resumes the session written again");
                again.disconnect();
                clean.disconnect();
            } finally {
                check.shutdown();
            }
        }
    }
}
