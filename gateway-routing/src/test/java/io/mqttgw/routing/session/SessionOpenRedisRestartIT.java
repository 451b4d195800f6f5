package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * under a node-loss wave otherwise gave every moved device session present 0. But once Redis has answered nothing for
 * a whole {@code session.open-timeout}, the devices of a reconnect wave are served at once: waiting each for the whole
 * timeout let a node take only ~110 CONNECTs a second with Redis down (fleet bench, redis-outage scenario).
 */
class SessionOpenRedisRestartIT {
    @TempDir
    Path dir;

    @Test
    void aDeviceReconnectingWhileRedisRestartsGetsItsSessionOnceRedisIsBack() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient check = TestRouteStores.checker(redis);
            try (Gateway node = start(pki, redis, "10s")) {
                String id = "dev-back";
                Mqtt3BlockingClient device = storedSessionOffline(pki, node, check, id);

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

    @Test
    void devicesConnectingAfterRedisAnsweredNothingForAWholeOpenTimeoutAreServedAtOnceUntilItAnswers()
            throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"))) {
            RedissonClient check = TestRouteStores.checker(redis);
            try (Gateway node = start(pki, redis, "6s")) {
                Mqtt3BlockingClient keeper = storedSessionOffline(pki, node, check, "dev-keeper");
                redis.saveSnapshot();
                redis.stop();
                // the first waits (Redis might be failing over) and gives up a little before the open-timeout, so
                // the next ones come once Redis has answered nothing for the whole open-timeout since its first call
                long first = System.nanoTime();
                connectPersistent(pki, node, "dev-wave-0");
                Thread.sleep(Math.max(0, 6300 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - first)));
                for (int i = 1; i <= 3; i++) {
                    long started = System.nanoTime();
                    assertFalse(connectPersistent(pki, node, "dev-wave-" + i), "no stored session without Redis");
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    // waiting for the store would take at least 6 s less the last backoff (1 s) and its margin
                    assertTrue(millis < 3000, "dev-wave-" + i + " served after " + millis + " ms");
                }
                RedisSessionStore store = (RedisSessionStore) node.sessions();
                assertEquals(3, store.skippedCount(), "opens not sent to Redis");
                assertEquals(4, node.metrics().sessionsOpened("unavailable"));

                redis.start();
                // a probe notices Redis answering again within a second; the keeper's session was never touched
                await("the keeper's stored session, once Redis answers", () -> {
                    boolean present = keeper.connectWith().cleanSession(false).send().isSessionPresent();
                    keeper.disconnect();
                    return present;
                }, 20);
            } finally {
                check.shutdown();
            }
        }
    }

    private Gateway start(TestPki pki, RedisTestServer redis, String openTimeout) throws Exception {
        return TestGateway.tls(pki, dir.resolve("node")).with("node.id", "node-a")
                .with("routes.provider", "redis").with("session.provider", "redis")
                .with("routes.redis.address", redis.address()).with("routes.redis.timeout", "1s")
                .with("session.open-timeout", openTimeout).with("acl.subscribe", "devices/{client-id}/#")
                .start();
    }

    /** A device with a subscription in its stored session, disconnected. */
    private static Mqtt3BlockingClient storedSessionOffline(TestPki pki, Gateway node, RedissonClient check, String id)
            throws Exception {
        Mqtt3BlockingClient device = TestDevices.mutualTls(pki, node.tlsPort(), id).buildBlocking();
        device.connectWith().cleanSession(false).send();
        device.subscribeWith().topicFilter("devices/" + id + "/commands").qos(MqttQos.AT_LEAST_ONCE).send();
        await("subscription saved", () -> check.<String, String>getMap("mqttgw:session:{" + id + "}",
                StringCodec.INSTANCE).containsKey("subs"), 10);
        device.disconnect();
        await(id + " offline", () -> node.registry().find(id) == null, 10);
        return device;
    }

    /** Connects a persistent device (left connected); whether CONNACK said session present. */
    private static boolean connectPersistent(TestPki pki, Gateway node, String id) {
        Mqtt3BlockingClient device = TestDevices.mutualTls(pki, node.tlsPort(), id).buildBlocking();
        return device.connectWith().cleanSession(false).send().isSessionPresent();
    }
}
