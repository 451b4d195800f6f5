package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.ControlledSink;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.routing.testkit.RedisServerTests;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MQTT 5.0 delayed wills across two gateway nodes sharing a real Redis ({@code session.provider: redis}): a will armed
 * on one node is cancelled by the device resuming on the other, and published once by the fleet when its delay has
 * passed, also when the node that armed it is gone.
 */
class FleetDelayedWillIT extends RedisServerTests {
    static final int DELAY_SECONDS = 2;

    static TestPki pki;
    Gateway a;
    Gateway b;

    @BeforeAll
    static void createPki() {
        pki = TestPki.create(dir.resolve("pki"));
    }

    @BeforeEach
    void startNodes() {
        a = node("node-a");
        b = node("node-b");
    }

    @AfterEach
    void stopNodes() {
        for (Gateway node : new Gateway[] {a, b}) {
            if (node != null) {
                node.close();
            }
        }
    }

    Gateway node(String id) {
        return TestGateway.tls(pki, dir.resolve(id + "-" + System.nanoTime())).with("node.id", id)
                .with("routes.provider", "redis").with("session.provider", "redis")
                .with("routes.redis.address", redis.address()).with("routes.redis.flush-interval", "5ms")
                .with("routes.redis.timeout", "5s")
                .with("uplink.sink", "controlled")
                .start();
    }

    static ControlledSink sink(Gateway node) {
        return (ControlledSink) node.sink();
    }

    static Mqtt5BlockingClient device(Gateway node, String clientId) {
        return TestDevices.mutualTls5(pki, node.tlsPort(), clientId).buildBlocking();
    }

    /** Connects with a persistent session and a delayed will, then leaves so that the will applies. */
    static void armWill(Gateway node, String clientId) {
        armWill(node, clientId, DELAY_SECONDS);
    }

    static void armWill(Gateway node, String clientId, int delaySeconds) {
        Mqtt5BlockingClient c = device(node, clientId);
        c.connectWith().cleanStart(true).sessionExpiryInterval(60).willPublish()
                .topic("devices/" + clientId + "/status").qos(MqttQos.AT_LEAST_ONCE)
                .payload(("gone " + clientId).getBytes(StandardCharsets.UTF_8)).delayInterval(delaySeconds)
                .applyWillPublish().send();
        c.disconnectWith().reasonCode(Mqtt5DisconnectReasonCode.DISCONNECT_WITH_WILL_MESSAGE).send();
    }

    static void awaitGone(Gateway node, String clientId) throws InterruptedException {
        await(clientId + " gone from " + node.config().nodeId(), () -> node.registry().find(clientId) == null, 15);
    }

    static void awaitArmedInRedis(String clientId) throws InterruptedException {
        await(clientId + "'s will kept where the fleet sees it (Redis), not only in node-a's memory",
                () -> check.getKeys().countExists("mqttgw:will:{" + clientId + "}") == 1, 10);
    }

    /** What each sink received, by client id, after waiting {@code seconds} for more. */
    static Map<String, Integer> wills(long seconds, Gateway... nodes) throws InterruptedException {
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        Map<String, Integer> count = new HashMap<>();
        for (Gateway node : nodes) {
            ControlledSink sink = sink(node);
            while (sink.waiting() > 0) {
                ControlledSink.Pending p = sink.next(1);
                p.done().complete(null);
                count.merge(p.message().clientId(), 1, Integer::sum);
            }
        }
        return count;
    }

    @Test
    void aWillArmedOnOneNodeIsNotPublishedWhenTheDeviceResumesOnAnotherWithinTheDelay() throws Exception {
        armWill(a, "dev-back");
        awaitGone(a, "dev-back");
        Mqtt5BlockingClient back = device(b, "dev-back");
        assertTrue(back.connectWith().cleanStart(false).sessionExpiryInterval(60).send().isSessionPresent(),
                "the session moved to node-b");
        // the delay, the poll interval and a margin for a loaded machine
        Map<String, Integer> published = wills(DELAY_SECONDS + 4, a, b);
        assertEquals(Map.of(), published, "the device resumed on node-b within the will delay");
        assertEquals(0, check.getKeys().countExists("mqttgw:will:{dev-back}"), "no will left in Redis");
        back.disconnect();
    }

    @Test
    void aCleanStartOnAnotherNodeEndsTheSessionSoTheWillIsPublishedAtOnce() throws Exception {
        armWill(a, "dev-clean", 30);
        awaitGone(a, "dev-clean");
        awaitArmedInRedis("dev-clean");
        Mqtt5BlockingClient fresh = device(b, "dev-clean");
        assertFalse(fresh.connectWith().cleanStart(true).sessionExpiryInterval(60).send().isSessionPresent());
        // well before the 30 s delay
        ControlledSink.Pending will = sink(b).next(10);
        will.done().complete(null);
        assertEquals("gone dev-clean", new String(will.message().payload(), StandardCharsets.UTF_8));
        assertEquals(Map.of(), wills(2, a, b), "published once");
        fresh.disconnect();
    }

    @Test
    void aWillOfANodeThatIsGoneIsPublishedOnceByTheOtherWhenDue() throws Exception {
        armWill(a, "dev-orphan");
        awaitGone(a, "dev-orphan");
        awaitArmedInRedis("dev-orphan");
        long goneAt = System.nanoTime();
        a.close();
        a = null;
        ControlledSink.Pending will = sink(b).next(DELAY_SECONDS + 10);
        will.done().complete(null);
        assertTrue(System.nanoTime() - goneAt >= TimeUnit.MILLISECONDS.toNanos(DELAY_SECONDS * 1000L - 1500),
                "published when due, not when node-a went away");
        assertEquals("dev-orphan", will.message().clientId());
        assertEquals("devices/dev-orphan/status", will.message().topic());
        assertEquals("gone dev-orphan", new String(will.message().payload(), StandardCharsets.UTF_8));
        assertEquals(1, will.message().qos());
        assertEquals(Map.of(), wills(2, b), "published once");
    }

    @Test
    void aDeviceOfANodeShuttingDownThatResumesOnAnotherWithinTheDelayGetsNoWill() throws Exception {
        Mqtt5BlockingClient c = device(a, "dev-moved");
        c.connectWith().cleanStart(true).sessionExpiryInterval(60).willPublish().topic("devices/dev-moved/status")
                .qos(MqttQos.AT_LEAST_ONCE).payload("gone".getBytes(StandardCharsets.UTF_8)).delayInterval(4)
                .applyWillPublish().send();
        ControlledSink leftSink = sink(a);
        a.close();
        a = null;
        assertEquals(0, leftSink.waiting(), "node-a left the will to the fleet rather than publishing it");
        Mqtt5BlockingClient moved = device(b, "dev-moved");
        assertTrue(moved.connectWith().cleanStart(false).sessionExpiryInterval(60).send().isSessionPresent(),
                "the session moved to node-b");
        Map<String, Integer> published = wills(4 + 4, b);
        assertEquals(Map.of(), published, "the device resumed on node-b within the will delay");
        moved.disconnect();
    }

    @Test
    void twoPollingNodesPublishEachDueWillOnce() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String id = "dev-many-" + i;
            ids.add(id);
            armWill(i % 2 == 0 ? a : b, id);
        }
        for (String id : ids) {
            awaitGone(i(id) % 2 == 0 ? a : b, id);
        }
        Map<String, Integer> published = wills(DELAY_SECONDS + 5, a, b);
        Map<String, Integer> once = new HashMap<>();
        ids.forEach(id -> once.put(id, 1));
        assertEquals(once, published);
        assertFalse(published.isEmpty());
    }

    private static int i(String id) {
        return Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
    }
}
