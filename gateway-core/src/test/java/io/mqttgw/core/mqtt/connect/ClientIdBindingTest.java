package io.mqttgw.core.mqtt.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ProtocolFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The identity step alone: which client id a CONNECT ends up with, or why it has none. */
class ClientIdBindingTest {
    @TempDir
    Path dir;

    private static ConnectionContext withCertificate(String identity) {
        ConnectionContext context = new ConnectionContext("tls");
        context.verifiedCertificate(null, identity, 0L, new byte[32]);
        return context;
    }

    @Test
    void takesTheCertificateIdentityForAnEmptyClientId() {
        ClientIdBinding binding = new ClientIdBinding(ProtocolFixture.create(dir).services);
        ClientIdBinding.Bound bound = binding.bind(withCertificate("dev-1"), "");
        assertEquals("dev-1", bound.clientId());
        assertNull(bound.refused());
    }

    @Test
    void keepsTheCertificatesStringWhenTheClientIdEqualsIt() {
        String identity = new String("dev-1".toCharArray());
        ClientIdBinding binding = new ClientIdBinding(ProtocolFixture.create(dir).services);
        assertSame(identity, binding.bind(withCertificate(identity), "dev-1").clientId(),
                "one string for both, not the decoder's copy too");
    }

    @Test
    void refusesAnotherClientIdThanTheCertificateIdentityUnderMustMatch() {
        ClientIdBinding binding = new ClientIdBinding(ProtocolFixture.create(dir).services);
        ClientIdBinding.Bound bound = binding.bind(withCertificate("dev-1"), "dev-2");
        assertNull(bound.clientId());
        assertEquals(ConnectRefusal.IDENTIFIER_REJECTED, bound.refused().refusal());
        assertEquals(DisconnectReason.CONNECT_REFUSED, bound.refused().reason());
    }

    @Test
    void replacesTheClientIdByTheCertificateIdentityUnderUseIdentity() {
        ProtocolFixture f = ProtocolFixture.create(dir, "identity.client-id-policy", "use-identity");
        assertEquals("dev-1", new ClientIdBinding(f.services).bind(withCertificate("dev-1"), "dev-2").clientId());
    }

    @Test
    void refusesACertificateWithoutIdentityAsNotAuthorized() {
        ClientIdBinding binding = new ClientIdBinding(ProtocolFixture.create(dir).services);
        assertEquals(ConnectRefusal.NOT_AUTHORIZED, binding.bind(withCertificate(null), "dev-1").refused().refusal());
    }

    @Test
    void assignsAnIdOfThisNodeToAnEmptyOneWithoutCertificate() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        String id = new ClientIdBinding(f.services).bind(new ConnectionContext("tcp"), "").clientId();
        assertTrue(id.startsWith("auto-" + f.config.nodeId() + "-"), id);
    }

    @Test
    void refusesACertificateIdentityThatBreaksTheIdentityRulesAndCountsIt() {
        ProtocolFixture f = ProtocolFixture.create(dir, "identity.client-id-policy", "use-identity");
        ClientIdBinding.Bound bound = new ClientIdBinding(f.services).bind(withCertificate("dev/+"), "");
        assertNull(bound.clientId());
        assertEquals("dev/+", bound.refused().clientId());
        assertEquals(DisconnectReason.INVALID_IDENTITY, bound.refused().reason());
        assertEquals(1.0, f.metrics.identitiesRejected("wildcard") + f.metrics.identitiesRejected("level_separator"));
    }
}
