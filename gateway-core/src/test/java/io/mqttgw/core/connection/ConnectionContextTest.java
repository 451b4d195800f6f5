package io.mqttgw.core.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectionContextTest {
    @TempDir
    Path dir;

    @Test
    void keepsTheParsedCertificateOnlyUntilTheSessionOpens() throws Exception {
        X509Certificate certificate = TestPki.create(dir).device("dev-1").getCertificate();
        ConnectionContext context = new ConnectionContext("tls");
        context.verifiedCertificate(certificate, "dev-1");
        // while CONNECT is decided, authentication gets the certificate itself
        assertSame(certificate, context.certificate());

        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, false);

        assertNull(context.certificate(), "an open session keeps no parsed certificate");
        assertTrue(context.hasVerifiedCertificate());
        assertEquals("dev-1", context.certificateIdentity());
        assertEquals(certificate.getNotAfter().getTime(), context.certificateNotAfterMillis());
        assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()),
                context.certificateSha256());
        assertEquals(IdentityProof.CERTIFICATE, context.proof());
        assertEquals("dev-1", context.sessionKey(), "a certificate-proven session's key is the client id");
        assertEquals("tls", context.listener());
    }

    @Test
    void connectionWithoutCertificateHasNoFingerprint() {
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, false);
        assertFalse(context.hasVerifiedCertificate());
        assertNull(context.certificateSha256());
        assertEquals(IdentityProof.NO_CERTIFICATE, context.proof());
        assertEquals(IdentityProof.NO_CERTIFICATE_SESSION_PREFIX + "dev-1", context.sessionKey());
        assertEquals("tcp", context.listener());
    }

    @Test
    void handsOutTheFingerprintAsACopyNeitherSideCanChangeLater() {
        ConnectionContext context = new ConnectionContext("tls");
        byte[] sha256 = new byte[32];
        sha256[0] = 7;
        sha256[31] = 9;
        context.verifiedCertificate(null, "dev-1", 0L, sha256);
        sha256[0] = 1;
        context.certificateSha256()[31] = 0;

        byte[] read = context.certificateSha256();
        assertEquals(7, read[0], "changing the array handed in changes nothing");
        assertEquals(9, read[31], "changing an array handed out changes nothing");
    }

    @Test
    void refusesAFingerprintThatIsNotSha256() {
        ConnectionContext context = new ConnectionContext("tls");
        assertThrows(IllegalArgumentException.class,
                () -> context.verifiedCertificate(null, "dev-1", 0L, new byte[20]));
        assertFalse(context.hasVerifiedCertificate());
    }

    @Test
    void refusesAListenerOtherThanTcpOrTls() {
        // the listener is kept as a flag, so a third name would be read back as tcp
        assertThrows(IllegalArgumentException.class, () -> new ConnectionContext("udp"));
    }
}
