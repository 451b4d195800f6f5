package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Persistent sessions across two gateway nodes sharing a real Redis ({@code routes.provider} and
 * {@code session.provider} redis): devices connect over mutual TLS, leave, and come back on the other node.
 */
class RedisPersistentSessionIT {
    static final int MAX_PENDING = 3;

    @TempDir
    static Path dir;
    static RedisTestServer redis;
    static RedissonClient check;
    static TestPki pki;
    static Gateway a;
    static Gateway b;

    @BeforeAll
    static void start() {
        redis = RedisTestServer.start(dir.resolve("redis"));
        check = TestRouteStores.checker(redis);
        pki = TestPki.create(dir.resolve("pki"));
        a = node("node-a");
        b = node("node-b");
        assertInstanceOf(RedisSessionStore.class, a.sessions());
        assertInstanceOf(RedisSessionStore.class, b.sessions());
    }

    @AfterEach
    void noStoreCallFailed() {
        for (Gateway node : List.of(a, b)) {
            for (String op : GatewayMetrics.SESSION_STORE_OPERATIONS) {
                assertEquals(0, node.metrics().sessionStoreErrors(op), node.config().nodeId() + " " + op + " failed");
            }
            assertEquals(0, node.metrics().sessionsOpened("unavailable"), "a session open timed out");
        }
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {a, b}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // the other node and Redis still stop
            }
        }
        if (check != null) {
            check.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }

    static Gateway node(String id) {
        return TestGateway.tls(pki, dir.resolve(id)).with("node.id", id)
                .with("routes.provider", "redis").with("session.provider", "redis")
                .with("routes.redis.address", redis.address()).with("routes.redis.flush-interval", "5ms")
                .with("routes.redis.timeout", "2s")
                .with("session.max-pending", Integer.toString(MAX_PENDING))
                .with("acl.subscribe", "devices/{client-id}/#,fleet/#")
                .with("downlink.retry-interval", "30s")
                .start();
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static DownlinkMessage command(String clientId, String payload) {
        return new DownlinkMessage(clientId, "devices/" + clientId + "/commands", 1, false, utf8(payload));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(Mqtt3Publish p) {
        return new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    static long sessionTtl(String clientId) {
        return check.getBucket("mqttgw:session:{" + clientId + "}", StringCodec.INSTANCE).remainTimeToLive();
    }

    /** A device's session is closed on {@code node} and its expiry is running in Redis. */
    static void awaitOffline(Gateway node, String clientId) throws InterruptedException {
        await(clientId + " gone from " + node.config().nodeId(), () -> node.registry().find(clientId) == null, 10);
        await(clientId + "'s session expiring", () -> sessionTtl(clientId) > 0, 10);
    }

    /** The clean CONNECT's delete is not waited for before CONNACK, so it is awaited here. */
    static void awaitNoSessionKeys(String id) throws InterruptedException {
        await("nothing of " + id + "'s session left in Redis", () -> check.getKeys().countExists(
                "mqttgw:session:{" + id + "}", "mqttgw:session:{" + id + "}:pending",
                "mqttgw:session:{" + id + "}:messages") == 0, 10);
    }

    static int retainedCount(Gateway node, String filter) {
        return node.sessions().retained(filter).toCompletableFuture().orTimeout(2, TimeUnit.SECONDS).join().size();
    }

    static Mqtt3Publish receive(Mqtt3BlockingClient.Mqtt3Publishes publishes, String what) throws Exception {
        return publishes.receive(10, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("no " + what));
    }

    @Test
    void deliversQueuedCommandsInOrderOnReconnectToAnotherNodeWithTheSubscriptionRestored() throws Exception {
        String id = "dev-move";
        Mqtt3BlockingClient onA = TestDevices.mutualTls(pki, a.tlsPort(), id).buildBlocking();
        Mqtt3ConnAck first = onA.connectWith().cleanSession(false).send();
        assertFalse(first.isSessionPresent(), "a new session");
        onA.subscribeWith().topicFilter("devices/" + id + "/commands").qos(MqttQos.AT_LEAST_ONCE).send();
        await("subscription saved", () -> check.<String, String>getMap("mqttgw:session:{" + id + "}",
                StringCodec.INSTANCE).containsKey("subs"), 10);
        onA.disconnect();
        awaitOffline(a, id);

        // the device is offline: node a queues in its persistent session, up to session.max-pending
        for (int i = 1; i <= MAX_PENDING; i++) {
            assertEquals(Outcome.QUEUED, get(a.downlink().deliver(command(id, "cmd-" + i))), "cmd-" + i);
        }
        assertEquals(Outcome.QUEUE_FULL, get(a.downlink().deliver(command(id, "cmd-4"))));
        assertEquals(Outcome.NOT_CONNECTED, get(a.downlink().deliver(new DownlinkMessage(id,
                "devices/" + id + "/commands", 0, false, utf8("qos0")))), "QoS 0 is not kept");

        Mqtt3BlockingClient onB = TestDevices.mutualTls(pki, b.tlsPort(), id).buildBlocking();
        try (Mqtt3BlockingClient.Mqtt3Publishes publishes = onB.publishes(MqttGlobalPublishFilter.ALL)) {
            Mqtt3ConnAck back = onB.connectWith().cleanSession(false).send();
            assertTrue(back.isSessionPresent(), "node b found the session node a kept");
            List<String> got = new ArrayList<>();
            for (int i = 1; i <= MAX_PENDING; i++) {
                Mqtt3Publish p = receive(publishes, "queued command " + i);
                assertEquals("devices/" + id + "/commands", p.getTopic().toString());
                assertEquals(MqttQos.AT_LEAST_ONCE, p.getQos());
                got.add(text(p));
            }
            assertEquals(List.of("cmd-1", "cmd-2", "cmd-3"), got, "stored order");
            await("acknowledged messages removed from Redis", () -> check.getList("mqttgw:session:{" + id
                    + "}:pending", StringCodec.INSTANCE).size() == 0, 10);

            // no SUBSCRIBE on node b: the restored subscription lets a live command through
            assertEquals(Outcome.DELIVERED, get(b.downlink().deliver(command(id, "live"))));
            assertEquals("live", text(receive(publishes, "live command")));
            assertEquals(-1, sessionTtl(id), "no expiry while connected");
        }
        onB.disconnect();
        awaitOffline(b, id);
        assertEquals(Outcome.QUEUED, get(b.downlink().deliver(command(id, "left-behind"))));

        // clean session 1 discards the session: nothing present, nothing delivered, no subscription
        Mqtt3BlockingClient clean = TestDevices.mutualTls(pki, a.tlsPort(), id).buildBlocking();
        try (Mqtt3BlockingClient.Mqtt3Publishes publishes = clean.publishes(MqttGlobalPublishFilter.ALL)) {
            assertFalse(clean.connectWith().cleanSession(true).send().isSessionPresent());
            assertEquals(Outcome.NOT_SUBSCRIBED, get(a.downlink().deliver(command(id, "unsubscribed"))));
            clean.subscribeWith().topicFilter("devices/" + id + "/commands").qos(MqttQos.AT_LEAST_ONCE).send();
            assertEquals(Outcome.DELIVERED, get(a.downlink().deliver(command(id, "marker"))));
            // stored messages would have come right after CONNACK, before anything sent after SUBACK
            assertEquals("marker", text(receive(publishes, "marker")));
            awaitNoSessionKeys(id);
        }
        clean.disconnect();
        await(id + " gone from node a", () -> a.registry().find(id) == null, 10);
        assertEquals(Outcome.NOT_CONNECTED, get(b.downlink().deliver(command(id, "after-clean"))),
                "a clean session leaves nothing to queue in");
    }

    @Test
    void aRetainedMessageSentThroughOneNodeReachesALaterWildcardSubscriberOnTheOtherWithTheRetainFlag()
            throws Exception {
        Mqtt3BlockingClient live = TestDevices.mutualTls(pki, a.tlsPort(), "dev-live").buildBlocking();
        Mqtt3BlockingClient later = TestDevices.mutualTls(pki, b.tlsPort(), "dev-later").buildBlocking();
        try (Mqtt3BlockingClient.Mqtt3Publishes livePublishes = live.publishes(MqttGlobalPublishFilter.ALL);
             Mqtt3BlockingClient.Mqtt3Publishes laterPublishes = later.publishes(MqttGlobalPublishFilter.ALL)) {
            live.connect();
            live.subscribeWith().topicFilter("fleet/eu/config").qos(MqttQos.AT_LEAST_ONCE).send();

            assertEquals(1, get(a.downlink().broadcast(new DownlinkMessage(null, "fleet/eu/config", 1, true,
                    utf8("cfg-v1")))));
            Mqtt3Publish liveCopy = receive(livePublishes, "live copy");
            assertEquals("cfg-v1", text(liveCopy));
            assertFalse(liveCopy.isRetain(), "a live delivery clears the retain flag (MQTT-3.3.1-9)");
            // a retained message for one device's topic through deliver() is stored as well
            assertEquals(Outcome.NOT_CONNECTED, get(a.downlink().deliver(new DownlinkMessage("dev-later",
                    "fleet/us/config", 1, true, utf8("cfg-us")))));
            await("both retained messages stored", () -> retainedCount(b, "fleet/#") == 2, 10);

            later.connect();
            later.subscribeWith().topicFilter("fleet/+/config").qos(MqttQos.AT_LEAST_ONCE).send();
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Mqtt3Publish p = receive(laterPublishes, "retained message " + i);
                assertTrue(p.isRetain(), p.getTopic() + " carries the retain flag");
                got.add(p.getTopic() + "=" + text(p));
            }
            got.sort(null);
            assertEquals(List.of("fleet/eu/config=cfg-v1", "fleet/us/config=cfg-us"), got);

            // an empty retained payload deletes it: a new subscriber gets only what is left
            assertEquals(Outcome.NOT_CONNECTED, get(b.downlink().deliver(new DownlinkMessage("dev-elsewhere",
                    "fleet/us/config", 1, true, new byte[0]))));
            await("retained fleet/us/config deleted", () -> retainedCount(a, "fleet/#") == 1, 10);
            later.subscribeWith().topicFilter("fleet/#").qos(MqttQos.AT_LEAST_ONCE).send();
            Mqtt3Publish again = receive(laterPublishes, "retained after delete");
            assertEquals("fleet/eu/config", again.getTopic().toString());
            assertTrue(again.isRetain());
        } finally {
            live.disconnect();
            later.disconnect();
        }
    }

    // --- takeover mid-flight, with a raw MQTT connection that withholds PUBACK ---------------------------------

    static RawMqttConnection connectRaw(Gateway node, String clientId, boolean cleanSession, boolean[] present)
            throws Exception {
        RawMqttConnection c = RawMqttConnection.tls(pki.clientContext(pki.device(clientId)), node.tlsPort());
        ByteArrayOutputStream variable = new ByteArrayOutputStream();
        writeString(variable, "MQTT");
        variable.write(4);
        variable.write(cleanSession ? 0x02 : 0x00);
        variable.write(0);
        variable.write(60);
        writeString(variable, clientId);
        c.send(RawMqttConnection.packet(0x10, variable.toByteArray()));
        byte[] connack = c.readPacket();
        assertEquals(0x20, connack[0] & 0xFF, "CONNACK");
        assertEquals(0, connack[3], "accepted");
        present[0] = (connack[2] & 0x01) == 1;
        return c;
    }

    static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = utf8(s);
        out.write(b.length >> 8);
        out.write(b.length & 0xFF);
        out.writeBytes(b);
    }

    static void subscribe(RawMqttConnection c, String filter) throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0);
        body.write(1);
        writeString(body, filter);
        body.write(1);
        c.send(RawMqttConnection.packet(0x82, body.toByteArray()));
        byte[] suback = c.readPacket();
        assertEquals(0x90, suback[0] & 0xFF, "SUBACK");
        assertEquals(1, suback[suback.length - 1], "granted QoS 1");
    }

    /** A QoS 1 PUBLISH read from {@code c}: its topic, packet id and payload. */
    record Publish(int flags, String topic, int packetId, String payload) {
        static Publish read(RawMqttConnection c) throws Exception {
            byte[] p = c.readPacket();
            assertEquals(0x30, p[0] & 0xF0, "PUBLISH");
            int i = 1;
            while ((p[i] & 0x80) != 0) {
                i++;
            }
            i++;
            int topicLength = ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
            String topic = new String(p, i + 2, topicLength, StandardCharsets.UTF_8);
            int at = i + 2 + topicLength;
            int packetId = ((p[at] & 0xFF) << 8) | (p[at + 1] & 0xFF);
            return new Publish(p[0] & 0x0F, topic, packetId, new String(p, at + 2, p.length - at - 2,
                    StandardCharsets.UTF_8));
        }

        void acknowledge(RawMqttConnection c) throws Exception {
            c.send(new byte[] {0x40, 2, (byte) (packetId >> 8), (byte) packetId});
        }
    }

    @Test
    void anUnacknowledgedCommandIsSentAgainWhenThePersistentSessionMovesToTheOtherNode() throws Exception {
        String id = "dev-midflight";
        boolean[] present = new boolean[1];
        try (RawMqttConnection onA = connectRaw(a, id, false, present)) {
            assertFalse(present[0]);
            subscribe(onA, "devices/" + id + "/commands");
            CompletableFuture<Outcome> outcome = a.downlink().deliver(command(id, "reboot")).toCompletableFuture();
            Publish sent = Publish.read(onA);
            assertEquals("reboot", sent.payload());
            assertEquals(0x02, sent.flags(), "QoS 1, no DUP");
            // no PUBACK: the device takes its session to node b instead
            try (RawMqttConnection onB = connectRaw(b, id, false, present)) {
                assertTrue(present[0], "session present on node b");
                Publish again = Publish.read(onB);
                assertEquals("devices/" + id + "/commands", again.topic());
                assertEquals("reboot", again.payload());
                assertEquals(Outcome.QUEUED, outcome.get(10, TimeUnit.SECONDS),
                        "node a lost the device, the session kept the command");
                assertTrue(onA.closedWithin(10_000), "node a closed the old connection as a takeover");
                again.acknowledge(onB);
                await("acknowledged on b, removed from Redis", () -> check.getList("mqttgw:session:{" + id
                        + "}:pending", StringCodec.INSTANCE).size() == 0, 10);
                // the subscription came along: a live command on node b needs no new SUBSCRIBE
                CompletableFuture<Outcome> next = b.downlink().deliver(command(id, "next")).toCompletableFuture();
                Publish live = Publish.read(onB);
                assertEquals("next", live.payload());
                live.acknowledge(onB);
                assertEquals(Outcome.DELIVERED, next.get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void anUnacknowledgedCommandIsDiscardedWhenTheClientReconnectsWithCleanSession() throws Exception {
        String id = "dev-midflight-clean";
        boolean[] present = new boolean[1];
        try (RawMqttConnection onA = connectRaw(a, id, false, present)) {
            subscribe(onA, "devices/" + id + "/commands");
            CompletableFuture<Outcome> outcome = a.downlink().deliver(command(id, "reboot")).toCompletableFuture();
            assertEquals("reboot", Publish.read(onA).payload());
            try (RawMqttConnection onB = connectRaw(b, id, true, present)) {
                assertFalse(present[0], "clean session: no session present");
                assertTrue(onA.closedWithin(10_000), "node a closed the old connection as a takeover");
                outcome.get(10, TimeUnit.SECONDS);
                subscribe(onB, "devices/" + id + "/commands");
                CompletableFuture<Outcome> marker = b.downlink().deliver(command(id, "marker"))
                        .toCompletableFuture();
                Publish first = Publish.read(onB);
                assertEquals("marker", first.payload(), "the unacknowledged command was not sent again");
                first.acknowledge(onB);
                assertEquals(Outcome.DELIVERED, marker.get(10, TimeUnit.SECONDS));
                awaitNoSessionKeys(id);
            }
        }
    }
}
