package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A device that comes back while Redis is briefly away (a failover, a restart) waits for its stored session, within
 * {@code session.open-timeout}, instead of being told at the first failed call that it has none: a Sentinel failover
 * under a node-loss wave otherwise gave every moved device session present 0.
 */
class SessionOpenRedisRestartIT {
    @TempDir
    Path dir;

    @Test
    void aDeviceReconnectingWhileRedisRestartsGetsItsSessionOnceRedisIsBack() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient check = TestRouteStores.checker(redis);
            try (Gateway node = TestGateway.tls(pki, dir.resolve("node")).with("node.id", "node-a")
                    .with("routes.provider", "redis").with("session.provider", "redis")
                    .with("routes.redis.address", redis.address()).with("routes.redis.timeout", "1s")
                    .with("session.open-timeout", "10s").with("acl.subscribe", "devices/{client-id}/#")
                    .start()) {
                String id = "dev-back";
                Mqtt3BlockingClient device = TestDevices.mutualTls(pki, node.tlsPort(), id).buildBlocking();
                device.connectWith().cleanSession(false).send();
                device.subscribeWith().topicFilter("devices/" + id + "/commands").qos(MqttQos.AT_LEAST_ONCE).send();
                await("subscription saved", () -> check.<String, String>getMap("mqttgw:session:{" + id + "}",
                        StringCodec.INSTANCE).containsKey("subs"), 10);
                device.disconnect();
                await(id + " offline", () -> node.registry().find(id) == null, 10);

                redis.saveSnapshot();
                redis.stop();
                // Redis comes back with its data 2 s after the device starts to reconnect
                CompletableFuture<Void> restart = CompletableFuture.runAsync(redis::start,
                        CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS));
                boolean present = device.connectWith().cleanSession(false).send().isSessionPresent();
                restart.get(20, TimeUnit.SECONDS);
                assertTrue(present, "the stored session, once Redis answered");
                assertEquals(0, node.metrics().sessionsOpened("unavailable"), "no open gave up");
                device.disconnect();
            } finally {
                check.shutdown();
            }
        }
    }
}
