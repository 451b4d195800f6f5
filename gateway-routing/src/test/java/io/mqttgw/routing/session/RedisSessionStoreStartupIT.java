package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.routing.testkit.RedisTestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code session.provider: redis} while Redis does not answer at startup. The address accepts TCP connections but
 * never answers (a hung or partitioned Redis): a client that connects on its caller's thread would hold an event loop
 * for {@code routes.redis.connect-timeout} per CONNECT. The event-loop guard of the test kit fails this test on any
 * blocking call on an event loop; on top, the storm must be answered long before the loops could have served it
 * one connect timeout at a time.
 */
class RedisSessionStoreStartupIT {
    static final int DEVICES = 300;

    @TempDir
    Path dir;

    @Test
    void aConnectStormWhileRedisHangsIsServedAsNewSessionsWithoutBlockingAnEventLoopThenSessionsWorkOnceRedisAnswers()
            throws Exception {
        RedisTestServer redis = RedisTestServer.start(dir.resolve("redis"));
        redis.stop();
        ServerSocket hung = new ServerSocket();
        hung.setReuseAddress(true);
        hung.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), redis.port()), 4096);
        Gateway gateway = null;
        List<Mqtt3AsyncClient> devices = new ArrayList<>();
        try {
            gateway = TestGateway.tcp(dir.resolve("node")).with("node.id", "node-a")
                    .with("routes.provider", "redis").with("session.provider", "redis")
                    .with("routes.redis.address", redis.address())
                    .with("routes.redis.connect-timeout", "3s").with("routes.redis.timeout", "3s")
                    .with("routes.redis.retry-max-delay", "500ms")
                    .with("acl.subscribe", "devices/{client-id}/#")
                    .start();
            RedisSessionStore store = assertInstanceOf(RedisSessionStore.class, gateway.sessions());

            // 300 persistent CONNECTs at once over 2 event loops: one connect timeout each would take 450 s
            List<CompletableFuture<Mqtt3ConnAck>> connacks = new ArrayList<>();
            for (int i = 0; i < DEVICES; i++) {
                Mqtt3AsyncClient device = Mqtt3Client.builder().identifier("storm-" + i).serverHost("127.0.0.1")
                        .serverPort(gateway.tcpPort()).buildAsync();
                devices.add(device);
                connacks.add(device.connectWith().cleanSession(false).keepAlive(60).send());
            }
            CompletableFuture.allOf(connacks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            for (CompletableFuture<Mqtt3ConnAck> c : connacks) {
                assertFalse(c.join().isSessionPresent(), "served as a new session");
            }
            assertEquals(DEVICES, gateway.metrics().sessionsOpened("unavailable"));
            assertTrue(store.refusedCount() >= DEVICES, "refusals counted: " + store.refusedCount());
            assertFalse(store.health().up());
            assertTrue(store.health().detail().startsWith("redis session store not connected yet"),
                    store.health().detail());
            for (Mqtt3AsyncClient d : devices) {
                d.disconnect().get(15, TimeUnit.SECONDS);
            }

            // Redis comes up on the same address: the store connects by itself and sessions are kept
            hung.close();
            redis.start();
            await("session store connected", () -> store.health().up(), 30);
            Mqtt3BlockingClient device = Mqtt3Client.builder().identifier("storm-7").serverHost("127.0.0.1")
                    .serverPort(gateway.tcpPort()).buildBlocking();
            assertFalse(device.connectWith().cleanSession(false).send().isSessionPresent(),
                    "nothing was stored while Redis was away");
            device.subscribeWith().topicFilter("devices/storm-7/commands").qos(MqttQos.AT_LEAST_ONCE).send();
            device.disconnect();
            Gateway g = gateway;
            await("storm-7 gone", () -> g.registry().find("storm-7") == null, 15);
            Mqtt3ConnAck back = device.connectWith().cleanSession(false).send();
            assertTrue(back.isSessionPresent(), "the session was kept in Redis");
            assertEquals(1, gateway.metrics().sessionsOpened("resumed"));
            device.disconnect();
        } finally {
            if (gateway != null) {
                gateway.close();
            }
            closeQuietly(hung);
            redis.close();
        }
    }

    private static void closeQuietly(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
