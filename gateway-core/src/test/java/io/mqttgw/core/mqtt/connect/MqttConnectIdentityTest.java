package io.mqttgw.core.mqtt.connect;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The identity rules and the proof kind at CONNECT, on the real pipeline in an EmbeddedChannel. */
class MqttConnectIdentityTest {
    @TempDir
    Path dir;

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void releaseChannels() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel channel(ProtocolFixture f) {
        EmbeddedChannel ch = f.deviceChannel();
        channels.add(ch);
        return ch;
    }

    private static MqttConnAckMessage connAck(EmbeddedChannel ch) {
        List<MqttMessage> out = written(ch);
        try {
            assertEquals(1, out.size(), "packets written: " + out);
            return assertInstanceOf(MqttConnAckMessage.class, out.get(0));
        } finally {
            release(out);
        }
    }

    private static void connect(EmbeddedChannel ch, String clientId, boolean cleanSession) {
        send(ch, MqttMessageBuilders.connect().clientId(clientId).cleanSession(cleanSession).keepAlive(60).build());
    }

    @ParameterizedTest(name = "client id {0} refused ({1})")
    @CsvSource(delimiter = '|', value = {
        "+        | wildcard",
        "#        | wildcard",
        "dev+x    | wildcard",
        "a/b      | level_separator",
        "$x       | dollar_prefix",
        "$SYS     | dollar_prefix",
        "dev\tx   | control_character"
    })
    void refusesAClientIdThatWouldChangeAnAclPatternBeforeAuthentication(String clientId, String reason) {
        ProtocolFixture f = ProtocolFixture.create(dir);
        EmbeddedChannel ch = channel(f);
        connect(ch, clientId, true);

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                connAck(ch).variableHeader().connectReturnCode());
        assertFalse(ch.isOpen());
        assertTrue(f.auth.requests.isEmpty(), "the authenticator never sees it");
        assertEquals(0, f.registry.size());
        assertEquals(DisconnectReason.INVALID_IDENTITY, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, f.metrics.identitiesRejected(reason));
    }

    @Test
    void refusesControlAndLineSeparatorCharactersInAClientId() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        for (String id : List.of("dev\nINFO forged", "dev\u007f", "dev\u2028x", "dev\u0085")) {
            EmbeddedChannel ch = channel(f);
            connect(ch, id, true);
            assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    connAck(ch).variableHeader().connectReturnCode(), id);
        }
        assertEquals(4.0, f.metrics.identitiesRejected("control_character"));
    }

    @Test
    void refusesACertificateIdentityWithAWildcardEvenWhenItReplacesAHarmlessClientId() {
        ProtocolFixture f = ProtocolFixture.create(dir, "identity.client-id-policy", "use-identity");
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        EmbeddedChannel ch = channel(f);
        ConnectionContext.of(ch).verifiedCertificate(cert, "+");
        connect(ch, "harmless", true);

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                connAck(ch).variableHeader().connectReturnCode());
        assertTrue(f.auth.requests.isEmpty());
        assertNull(f.registry.find("+"));
        assertNull(f.registry.find("harmless"));
    }

    @Test
    void acceptsAnAutoAssignedClientId() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        EmbeddedChannel ch = channel(f);
        connect(ch, "", true);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, connAck(ch).variableHeader().connectReturnCode());
        assertTrue(ConnectionContext.of(ch).clientId().startsWith("auto-test-node-"));
    }

    @Test
    void refusesAConnectionWithoutCertificateWhileACertificateConnectionHoldsTheId() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        EmbeddedChannel real = channel(f);
        ConnectionContext.of(real).verifiedCertificate(cert, "dev-1");
        connect(real, "dev-1", true);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, connAck(real).variableHeader().connectReturnCode());

        EmbeddedChannel impostor = channel(f);
        connect(impostor, "dev-1", true);

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                connAck(impostor).variableHeader().connectReturnCode());
        assertFalse(impostor.isOpen());
        assertEquals(DisconnectReason.IDENTITY_CONFLICT, ConnectionContext.of(impostor).closeReason());
        assertFalse(ConnectionContext.of(impostor).sessionOpen());
        assertTrue(real.isOpen(), "the certificate device stays connected");
        assertSame(real, f.registry.find("dev-1"));
        assertEquals(1.0, f.metrics.identitiesRejected(GatewayMetrics.PROOF_CONFLICT));
        assertEquals(0.0, f.metrics.disconnects(DisconnectReason.TAKEOVER));
    }

    @Test
    void refusesACertificateConnectionWhileOneWithoutCertificateHoldsTheId() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        EmbeddedChannel plain = channel(f);
        connect(plain, "dev-1", true);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, connAck(plain).variableHeader().connectReturnCode());

        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        EmbeddedChannel certified = channel(f);
        ConnectionContext.of(certified).verifiedCertificate(cert, "dev-1");
        connect(certified, "dev-1", true);

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                connAck(certified).variableHeader().connectReturnCode());
        assertTrue(plain.isOpen());
        assertSame(plain, f.registry.find("dev-1"));
    }

    @Test
    void sameProofStillTakesOver() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        EmbeddedChannel first = channel(f);
        connect(first, "dev-1", true);
        connAck(first);
        EmbeddedChannel second = channel(f);
        connect(second, "dev-1", true);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, connAck(second).variableHeader().connectReturnCode());
        first.runPendingTasks();
        assertFalse(first.isOpen());
        assertSame(second, f.registry.find("dev-1"));
    }

    @Test
    void keepsPersistentSessionsOfTheTwoProofKindsApart() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        EmbeddedChannel certified = channel(f);
        ConnectionContext.of(certified).verifiedCertificate(cert, "dev-1");
        connect(certified, "dev-1", false);
        assertFalse(connAck(certified).variableHeader().isSessionPresent());
        assertEquals("dev-1", ConnectionContext.of(certified).sessionKey());
        certified.close();

        EmbeddedChannel plain = channel(f);
        connect(plain, "dev-1", false);
        MqttConnAckMessage ack = connAck(plain);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, ack.variableHeader().connectReturnCode());
        assertFalse(ack.variableHeader().isSessionPresent(), "the certificate device's session is not resumed");
        assertEquals(IdentityProof.NO_CERTIFICATE.sessionKey("dev-1"), ConnectionContext.of(plain).sessionKey());
        plain.close();

        // nor discarded by a clean session without a certificate
        EmbeddedChannel cleaner = channel(f);
        connect(cleaner, "dev-1", true);
        connAck(cleaner);
        cleaner.close();

        EmbeddedChannel again = channel(f);
        ConnectionContext.of(again).verifiedCertificate(cert, "dev-1");
        connect(again, "dev-1", false);
        assertTrue(connAck(again).variableHeader().isSessionPresent(), "the certificate session is intact");
    }
}
