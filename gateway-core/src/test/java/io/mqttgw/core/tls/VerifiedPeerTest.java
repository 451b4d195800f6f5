package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over from the trust manager to the handshake handler: admission asks whether the verifier answered from
 * its cache first, and that question must leave the certificate for the handler, which otherwise reads the session's
 * chain and, as nothing was verified in this handshake, verifies it a second time. The hand-over happens while the
 * OpenSSL engine holds its own lock and must not inflate it.
 */
class VerifiedPeerTest {
    @TempDir
    Path dir;

    @Test
    void askingWhetherTheCacheAnsweredLeavesTheCertificateForTheHandshakeHandler() throws Exception {
        X509Certificate device = TestPki.create(dir).device("dev-1").getCertificate();
        SSLEngine engine = SSLContext.getDefault().createSSLEngine();
        VerifiedPeer.remember(engine, device, new DeviceCertificateVerifier.Verdict(null, true), null);

        assertTrue(VerifiedPeer.fromCache(engine));
        assertSame(device, VerifiedPeer.take(engine).certificate());
        assertEquals(0, VerifiedPeer.inFlight());
        assertNull(VerifiedPeer.take(engine), "taken once");
    }

    @Test
    void aFailedHandshakeLeavesNothingBehind() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine();
        VerifiedPeer.remember(engine, TestPki.create(dir).device("dev-2").getCertificate(),
                new DeviceCertificateVerifier.Verdict(null, false), null);

        assertFalse(VerifiedPeer.fromCache(engine));
        VerifiedPeer.forget(engine);
        assertEquals(0, VerifiedPeer.inFlight());
    }

    @Test
    void handsOverWithoutInflatingTheLockTheOpenSslEngineHoldsWhileItVerifies() throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "BoringSSL's engine calls the trust manager under its own lock");
        TestPki pki = TestPki.create(dir);
        // the non-counted engine, as the counted one tracked by a PARANOID leak detector is hashed when it is made
        // (production samples one engine in 1,024 and hashes the rest only when asked)
        SSLEngine engine = SslContextBuilder.forServer(pki.certFile().toFile(), pki.keyFile().toFile())
                .sslProvider(SslProvider.OPENSSL).build().newEngine(ByteBufAllocator.DEFAULT);
        X509Certificate device = pki.device("dev-3").getCertificate();
        Path file = dir.resolve("inflations.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.JavaMonitorInflate").withThreshold(Duration.ZERO);
            recording.start();
            synchronized (engine) { // as in the engine's unwrap, from which BoringSSL calls the trust manager
                VerifiedPeer.remember(engine, device, new DeviceCertificateVerifier.Verdict(null, false), null);
            }
            recording.stop();
            recording.dump(file);
        }

        assertSame(device, VerifiedPeer.take(engine).certificate());
        List<String> inflated = RecordingFile.readAllEvents(file).stream()
                .map(event -> event.getClass("monitorClass").getName())
                .filter(type -> type.endsWith("OpenSslEngine"))
                .toList();
        assertEquals(List.of(), inflated, "engine locks inflated by the hand-over");
    }
}
