package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.DownlinkIT.subscribe;
import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.topic.TopicLimits;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Devices trying to reach each other, over real sockets: identities that would widen the ACL, a client without a
 * certificate posing as a certificate device (and the reverse), resuming another proof's persistent session, topics
 * past the limits, and a flood of new client ids against the session bound.
 */
class IdentityAttackIT {
    private static final byte[] PINGREQ = {(byte) 0xC0, 0};
    private static final byte[] DISCONNECT = {(byte) 0xE0, 0};

    @TempDir
    Path dir;

    /** TLS (client certificate required) and the plain listener, where a client without a certificate is let in. */
    private TestGateway both(TestPki pki) {
        return TestGateway.tls(pki, dir).with("listener.tcp.enabled", "true")
                .with("auth.certificate.allow-without-certificate", "true");
    }

    private static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** The packet types the gateway sends until it closes the connection. */
    private static List<Integer> packetTypesUntilClosed(RawMqttConnection c) throws IOException {
        c.socket().setSoTimeout(30_000);
        List<Integer> types = new ArrayList<>();
        while (true) {
            try {
                types.add((c.readPacket()[0] & 0xF0) >> 4);
            } catch (EOFException | SocketException | SSLException closed) {
                return types;
            }
        }
    }

    private static void disconnect(Gateway gateway, RawMqttConnection c, String clientId) throws Exception {
        c.send(DISCONNECT);
        assertTrue(c.closedWithin(30_000));
        waitUntil(() -> gateway.registry().find(clientId) == null, clientId + " unregistered");
    }

    @ParameterizedTest(name = "certificate CN {0}")
    @CsvSource(delimiter = '|', value = {
        "\\+  | +   | wildcard",
        "\\#  | #   | wildcard",
        "a/b  | a/b | level_separator",
        "$x   | $x  | dollar_prefix"
    })
    void refusesACertificateIdentityThatWouldWidenTheAclAndLeaksNothing(String subjectCn, String identity,
                                                                         String reason) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).start()) {
            Mqtt3AsyncClient victim = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-victim").buildAsync();
            List<Mqtt3Publish> received = new CopyOnWriteArrayList<>();
            victim.publishes(MqttGlobalPublishFilter.ALL, received::add);
            victim.connect().get(30, TimeUnit.SECONDS);
            victim.subscribeWith().topicFilter("devices/dev-victim/#").qos(MqttQos.AT_LEAST_ONCE).send()
                    .get(30, TimeUnit.SECONDS);
            byte[] secret = "secret".getBytes(StandardCharsets.UTF_8);
            assertEquals(Outcome.DELIVERED, gateway.downlink().deliver(new DownlinkMessage("dev-victim",
                    "devices/dev-victim/state", 1, true, secret)).toCompletableFuture().get(30, TimeUnit.SECONDS));

            // with the identity as client id (must-match), and with an empty one (the certificate names it)
            for (String clientId : List.of(identity, "")) {
                try (RawMqttConnection attacker = RawMqttConnection.tls(pki.clientContext(pki.device(subjectCn)),
                        gateway.tlsPort())) {
                    attacker.socket().setSoTimeout(30_000);
                    assertEquals(2, attacker.connect(clientId, 60), "identifier rejected");
                    try {
                        attacker.send(subscribe(1, "devices/+/#", 1));
                    } catch (IOException alreadyClosed) {
                        // closed after the CONNACK: nothing could be asked for
                    }
                    gateway.downlink().broadcast(new DownlinkMessage(null, "devices/dev-victim/state", 0, false,
                            secret));
                    List<Integer> types = packetTypesUntilClosed(attacker);
                    assertFalse(types.contains(3), "no PUBLISH reached the refused device: " + types);
                }
            }
            assertEquals(2.0, gateway.metrics().identitiesRejected(reason));
            // the close is counted when the gateway's side of the socket has finished closing
            waitUntil(() -> gateway.metrics().disconnects(DisconnectReason.INVALID_IDENTITY) == 2.0,
                    "both refusals counted as invalid_identity");
            waitUntil(() -> received.size() >= 3, "the victim got its retained message and both broadcasts");
            assertTrue(victim.getState().isConnected());
            victim.disconnect().get(30, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"+", "#", "devices/+", "a/b", "$SYS", "dev\u2028x", "dev\nx"})
    void refusesAClientIdThatWouldWidenTheAclOnThePlainListener(String clientId) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).start();
             RawMqttConnection c = RawMqttConnection.tcp(gateway.tcpPort())) {
            c.socket().setSoTimeout(30_000);
            assertEquals(2, c.connect(clientId, 60));
            assertTrue(c.closedWithin(30_000));
            assertEquals(0, gateway.registry().size());
        }
    }

    @Test
    void aClientWithoutCertificateCannotTakeOverTheCertificateDevice() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).start()) {
            Mqtt3AsyncClient real = TestDevices.mutualTls(pki, gateway.tlsPort(), "device-1").buildAsync();
            real.connect().get(30, TimeUnit.SECONDS);
            Channel held = gateway.registry().find("device-1");
            assertNotNull(held);

            try (RawMqttConnection impostor = RawMqttConnection.tcp(gateway.tcpPort())) {
                impostor.socket().setSoTimeout(30_000);
                assertEquals(2, impostor.connect("device-1", 60), "identifier rejected");
                assertTrue(impostor.closedWithin(30_000));
                // it cannot publish as the device either
                try {
                    impostor.send(publishPacket(0x30, utf8("devices/device-1/telemetry"), -1, utf8("forged")));
                } catch (IOException closed) {
                    // expected: the connection is gone
                }
            }

            // the real one stays connected, registered, and keeps publishing (QoS 1: acknowledged by the sink)
            real.publishWith().topic("devices/device-1/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("still me".getBytes(StandardCharsets.UTF_8)).send().get(30, TimeUnit.SECONDS);
            assertTrue(real.getState().isConnected());
            Channel still = gateway.registry().find("device-1");
            assertTrue(still == held && still.isActive());
            held.eventLoop().submit(() -> assertEquals(IdentityProof.CERTIFICATE,
                    ConnectionContext.of(held).proof())).get(30, TimeUnit.SECONDS);
            assertEquals(1.0, gateway.metrics().identitiesRejected(GatewayMetrics.PROOF_CONFLICT));
            assertEquals(0.0, gateway.metrics().disconnects(DisconnectReason.TAKEOVER));
            assertEquals(1.0, gateway.metrics().publishesReceived(1), "only the real device's PUBLISH went up");
            real.disconnect().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCertificateDeviceCannotTakeOverAClientWithoutCertificate() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).start();
             RawMqttConnection plain = RawMqttConnection.tcp(gateway.tcpPort())) {
            plain.socket().setSoTimeout(30_000);
            assertEquals(0, plain.connect("device-2", 60));
            try (RawMqttConnection certified = RawMqttConnection.tls(pki.clientContext(pki.device("device-2")),
                    gateway.tlsPort())) {
                certified.socket().setSoTimeout(30_000);
                assertEquals(2, certified.connect("device-2", 60));
                assertTrue(certified.closedWithin(30_000));
            }
            plain.send(PINGREQ);
            assertEquals(0xD0, plain.readPacket()[0] & 0xFF, "the first holder still answers");
        }
    }

    @Test
    void aClientWithoutCertificateCannotResumeNorDiscardTheCertificateDevicesSession() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).start()) {
            try (RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("device-3")),
                    gateway.tlsPort())) {
                device.socket().setSoTimeout(30_000);
                assertEquals(0, device.connect("device-3", 60, false)[3]);
                device.send(subscribe(1, "devices/device-3/commands", 1));
                assertEquals(0x90, device.readPacket()[0] & 0xFF, "SUBACK");
                disconnect(gateway, device, "device-3");
            }
            assertEquals(Outcome.QUEUED, gateway.downlink().deliver(new DownlinkMessage("device-3",
                    "devices/device-3/commands", 1, false, utf8("open the door")))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS));

            try (RawMqttConnection impostor = RawMqttConnection.tcp(gateway.tcpPort())) {
                impostor.socket().setSoTimeout(30_000);
                byte[] connack = impostor.connect("device-3", 60, false);
                assertEquals(0, connack[3]);
                assertEquals(0, connack[2], "session present 0: not the certificate device's session");
                impostor.send(PINGREQ);
                assertEquals(0xD0, impostor.readPacket()[0] & 0xFF, "PINGRESP, and no queued PUBLISH before it");
                disconnect(gateway, impostor, "device-3");
            }
            try (RawMqttConnection cleaner = RawMqttConnection.tcp(gateway.tcpPort())) {
                cleaner.socket().setSoTimeout(30_000);
                assertEquals(0, cleaner.connect("device-3", 60, true)[3]);
                disconnect(gateway, cleaner, "device-3");
            }

            try (RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("device-3")),
                    gateway.tlsPort())) {
                device.socket().setSoTimeout(30_000);
                byte[] connack = device.connect("device-3", 60, false);
                assertEquals(1, connack[2], "the certificate device's session is intact");
                byte[] publish = device.readPacket();
                assertEquals(0x30, publish[0] & 0xF0);
                assertTrue(new String(publish, StandardCharsets.UTF_8).endsWith("open the door"));
            }
        }
    }

    @Test
    void refusesTopicsPastTheLimitsOnSubscribeDownlinkAndPublish() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = both(pki).with("mqtt.max-topic-length", "64").with("mqtt.max-topic-levels", "4")
                .start();
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-4")),
                     gateway.tlsPort())) {
            device.socket().setSoTimeout(30_000);
            assertEquals(0, device.connect("dev-4", 60));
            device.send(subscribe(1, "devices/dev-4/a/b/c", 1));
            byte[] suback = device.readPacket();
            assertEquals(0x90, suback[0] & 0xFF);
            assertEquals(0x80, suback[4] & 0xFF, "five levels: refused in SUBACK");
            device.send(subscribe(2, "devices/dev-4/+", 1));
            assertEquals(1, device.readPacket()[4], "within the limits: granted");

            String tooDeep = "devices/dev-4/../../x";
            String tooLong = "devices/dev-4/" + "x".repeat(60);
            for (String topic : List.of(tooDeep, tooLong)) {
                assertEquals(Outcome.INVALID_TOPIC, gateway.downlink().deliver(new DownlinkMessage("dev-4", topic, 0,
                        false, utf8("x"))).toCompletableFuture().get(30, TimeUnit.SECONDS), topic);
            }
            assertEquals(0, gateway.downlink().broadcast(new DownlinkMessage(null, tooDeep, 0, false, utf8("x")))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS));
            assertEquals(2.0, gateway.metrics().topicsRefused("downlink", TopicLimits.Exceeded.LEVELS));
            assertEquals(1.0, gateway.metrics().topicsRefused("downlink", TopicLimits.Exceeded.LENGTH));
            assertEquals(1.0, gateway.metrics().topicsRefused("subscribe", TopicLimits.Exceeded.LEVELS));
            // the next packet is the valid message: nothing refused went out before it
            assertEquals(Outcome.DELIVERED, gateway.downlink().deliver(new DownlinkMessage("dev-4",
                    "devices/dev-4/ok", 0, false, utf8("fine"))).toCompletableFuture().get(30, TimeUnit.SECONDS));
            byte[] publish = device.readPacket();
            assertEquals(0x30, publish[0] & 0xF0);
            assertTrue(new String(publish, StandardCharsets.UTF_8).contains("devices/dev-4/ok"));

            device.send(publishPacket(0x30, utf8("devices/dev-4/../../x"), -1, utf8("up")));
            assertTrue(device.closedWithin(30_000), "a PUBLISH past the limits closes the connection");
            waitUntil(() -> gateway.metrics().disconnects(DisconnectReason.TOPIC_LIMIT) == 1.0, "counted");
            assertEquals(1.0, gateway.metrics().topicsRefused("publish", TopicLimits.Exceeded.LEVELS));
            assertEquals(0.0, gateway.metrics().publishesReceived(0));
        }
    }

    @Test
    void aFloodOfNewClientIdsKeepsStoredSessionsAtTheBoundEvictingTheOldestDisconnected() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        int bound = 5;
        int flood = 20;
        try (Gateway gateway = both(pki).with("session.max-sessions", Integer.toString(bound)).start()) {
            for (int i = 0; i < flood; i++) {
                try (RawMqttConnection c = RawMqttConnection.tcp(gateway.tcpPort())) {
                    c.socket().setSoTimeout(30_000);
                    assertEquals(0, c.connect("flood-" + i, 60, false)[3]);
                    disconnect(gateway, c, "flood-" + i);
                }
            }
            InMemorySessionStore store = (InMemorySessionStore) gateway.sessions();
            waitUntil(() -> store.sessions() == bound, "stored sessions at the bound: " + store.sessions());
            assertEquals(flood - bound, store.evictedCount());
            assertEquals(flood - bound, gateway.metrics().registry().get("mqttgw.sessions.evicted")
                    .functionCounter().count());
            assertEquals(bound, gateway.metrics().registry().get("mqttgw.sessions.memory.size").gauge().value());

            try (RawMqttConnection newest = RawMqttConnection.tcp(gateway.tcpPort())) {
                newest.socket().setSoTimeout(30_000);
                assertEquals(1, newest.connect("flood-" + (flood - 1), 60, false)[2], "the newest kept its session");
                disconnect(gateway, newest, "flood-" + (flood - 1));
            }
            try (RawMqttConnection oldest = RawMqttConnection.tcp(gateway.tcpPort())) {
                oldest.socket().setSoTimeout(30_000);
                assertEquals(0, oldest.connect("flood-0", 60, false)[2], "the oldest disconnected went first");
            }
        }
    }
}
