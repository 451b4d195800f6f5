package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over from the trust manager to the handshake handler: admission asks whether the verifier answered from
 * its cache first, and that question must leave the certificate for the handler, which otherwise reads the session's
 * chain and, as nothing was verified in this handshake, verifies it a second time.
 */
class VerifiedPeerTest {
    @TempDir
    Path dir;

    @Test
    void askingWhetherTheCacheAnsweredLeavesTheCertificateForTheHandshakeHandler() throws Exception {
        X509Certificate device = TestPki.create(dir).device("dev-1").getCertificate();
        SSLEngine engine = SSLContext.getDefault().createSSLEngine();
        VerifiedPeer.remember(engine, device, true);

        assertTrue(VerifiedPeer.fromCache(engine));
        assertSame(device, VerifiedPeer.take(engine));
        assertEquals(0, VerifiedPeer.inFlight());
        assertNull(VerifiedPeer.take(engine), "taken once");
    }

    @Test
    void aFailedHandshakeLeavesNothingBehind() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine();
        VerifiedPeer.remember(engine, TestPki.create(dir).device("dev-2").getCertificate(), false);

        assertFalse(VerifiedPeer.fromCache(engine));
        VerifiedPeer.forget(engine);
        assertEquals(0, VerifiedPeer.inFlight());
    }
}
