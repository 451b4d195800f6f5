package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.handler.ssl.SslProvider;
import io.netty.pkitesting.X509Bundle;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsFailureReasonTest {
    @TempDir
    Path dir;

    private static <T extends Throwable> T causedBy(T outer, Throwable cause) {
        outer.initCause(cause);
        return outer;
    }

    @Test
    void classifiesAMalformedCertificateRefusalAsMalformed() {
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("bad certificate"), CertificateRefusals.malformed("v2 with extensions"))));
    }

    @Test
    void classifiesACertificateParsingExceptionInTheChainAsMalformed() {
        // the JDK engine parses the certificate message itself; some of its parse failures are this type
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("Failed to parse server certificates"),
                new java.security.cert.CertificateParsingException("Extensions not allowed in v2 certificate"))));
    }

    @Test
    void classifiesTheJdkFactorysParseFailureAsMalformed() {
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("Failed to parse client certificates"),
                new CertificateException("Could not parse certificate", new java.io.IOException("extra data")))));
    }

    @Test
    void classifiesAHandshakeTimeout() {
        assertEquals(TlsFailureReason.TIMEOUT,
                TlsFailureReason.classify(new SslHandshakeTimeoutException("handshake timed out after 10000ms")));
    }

    @Test
    void classifiesBytesThatAreNoTlsRecord() {
        assertEquals(TlsFailureReason.NOT_TLS,
                TlsFailureReason.classify(new NotSslRecordException("not an SSL/TLS record")));
        assertEquals(TlsFailureReason.NOT_TLS,
                TlsFailureReason.classify(new DecoderException(new NotSslRecordException("wrapped"))));
    }

    @Test
    void classifiesIdentityRefusalsByTheirOwnReasonNotAsAnyCertificateRejection() {
        assertEquals(TlsFailureReason.AMBIGUOUS_IDENTITY, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("bad certificate"), CertificateRefusals.ambiguousIdentity("two CNs"))));
        assertEquals(TlsFailureReason.BAD_IDENTITY_ENCODING, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("bad certificate"), CertificateRefusals.badIdentityEncoding("odd length"))));
    }

    @Test
    void classifiesAnExpiredCertificateWrappedInAHandshakeException() {
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(
                causedBy(new SSLHandshakeException("bad certificate"), new CertificateExpiredException("expired"))));
    }

    @Test
    void classifiesANotYetValidCertificateAsExpired() {
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(
                causedBy(new SSLHandshakeException("bad certificate"), new CertificateNotYetValidException("early"))));
    }

    @Test
    void classifiesTheJdkValidatorChainForAnExpiredCertificateAsExpired() {
        // SSLHandshakeException <- ValidatorException (a CertificateException) <- CertPathValidatorException(EXPIRED)
        //   <- CertificateExpiredException, as the JDK trust manager reports it
        CertPathValidatorException validator = new CertPathValidatorException("validity check failed",
                new CertificateExpiredException("NotAfter: ..."), null, -1,
                CertPathValidatorException.BasicReason.EXPIRED);
        Throwable chain = causedBy(new SSLHandshakeException("PKIX path validation failed"),
                new CertificateException("PKIX path validation failed: " + validator, validator));
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(chain));
    }

    @Test
    void classifiesAnExpiredPathWithoutTheExpiryExceptionAsExpired() {
        CertPathValidatorException validator = new CertPathValidatorException("validity check failed", null, null,
                -1, CertPathValidatorException.BasicReason.EXPIRED);
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED,
                TlsFailureReason.classify(causedBy(new SSLHandshakeException("x"), validator)));
    }

    @Test
    void classifiesAnUntrustedCertificateAsRejected() {
        CertPathValidatorException validator = new CertPathValidatorException("no trust anchor", null, null, -1,
                CertPathValidatorException.BasicReason.UNSPECIFIED);
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, TlsFailureReason.classify(causedBy(
                new SSLHandshakeException("PKIX path building failed"), new CertificateException("untrusted",
                        validator))));
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED,
                TlsFailureReason.classify(causedBy(new SSLHandshakeException("x"), new CertificateException("bad"))));
    }

    @Test
    void classifiesAPeerCloseDuringTheHandshake() {
        assertEquals(TlsFailureReason.PEER_CLOSED, TlsFailureReason.classify(new ClosedChannelException()));
        assertEquals(TlsFailureReason.PEER_CLOSED,
                TlsFailureReason.classify(causedBy(new SSLException("closed"), new ClosedChannelException())));
    }

    @Test
    void classifiesAGenericHandshakeFailure() {
        assertEquals(TlsFailureReason.HANDSHAKE_FAILED,
                TlsFailureReason.classify(new SSLHandshakeException("no cipher suites in common")));
        assertEquals(TlsFailureReason.HANDSHAKE_FAILED, TlsFailureReason.classify(new SSLException("bad record mac")));
        assertEquals(TlsFailureReason.HANDSHAKE_FAILED, TlsFailureReason.classify(null));
    }

    @Test
    void survivesACauseCycleOfTwo() throws Exception {
        SSLException a = new SSLException("a");
        SSLException b = new SSLException("b", a);
        a.initCause(b); // a <- b <- a: Throwable only prevents a cause that is the exception itself

        java.util.concurrent.atomic.AtomicReference<TlsFailureReason> result = new
                java.util.concurrent.atomic.AtomicReference<>();
        Thread classifier = new Thread(() -> result.set(TlsFailureReason.classify(a)), "classify-cycle");
        classifier.setDaemon(true);
        classifier.start();
        classifier.join(500);
        boolean hung = classifier.isAlive();
        if (hung) {
            stop(classifier);
        }
        org.junit.jupiter.api.Assertions.assertFalse(hung, "classify() loops forever on a cause cycle");
        assertEquals(TlsFailureReason.HANDSHAKE_FAILED, result.get());
    }

    @SuppressWarnings({"deprecation", "removal"})
    private static void stop(Thread spinning) {
        try {
            spinning.stop(); // the loop never checks for interruption; do not leave it burning a core
        } catch (UnsupportedOperationException newerJdk) {
            // a daemon thread: it ends with the test JVM
        }
    }

    @Test
    void labelsAreLowerCase() {
        assertEquals("certificate_expired", TlsFailureReason.CERTIFICATE_EXPIRED.label());
        assertEquals("not_tls", TlsFailureReason.NOT_TLS.label());
    }

    // ---- real handshakes with the JDK engine, in memory

    /** The server side of an in-memory JDK handshake in which the client presents {@code device} regardless. */
    private static Throwable serverHandshakeFailure(TestPki pki, X509Bundle device) throws Exception {
        SslContext server = SslContextBuilder.forServer(pki.certFile().toFile(), pki.keyFile().toFile())
                .trustManager(pki.caFile().toFile()).clientAuth(ClientAuth.REQUIRE).sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").build();
        SSLEngine clientEngine = pki.clientContext(device).createSSLEngine("localhost", 8883);
        clientEngine.setUseClientMode(true);
        clientEngine.setEnabledProtocols(new String[] {"TLSv1.2"});
        EmbeddedChannel s = new EmbeddedChannel(server.newHandler(ByteBufAllocator.DEFAULT));
        EmbeddedChannel c = new EmbeddedChannel(new SslHandler(clientEngine));
        try {
            SslHandler serverSsl = s.pipeline().get(SslHandler.class);
            for (int round = 0; round < 20 && !serverSsl.handshakeFuture().isDone(); round++) {
                pump(c, s);
                pump(s, c);
            }
            assertNotNull(serverSsl.handshakeFuture().cause(), "the server handshake failed");
            return serverSsl.handshakeFuture().cause();
        } finally {
            s.finishAndReleaseAll();
            c.finishAndReleaseAll();
        }
    }

    private static void pump(EmbeddedChannel from, EmbeddedChannel to) {
        for (Object o = from.readOutbound(); o != null; o = from.readOutbound()) {
            if (!to.isOpen()) {
                io.netty.util.ReferenceCountUtil.release(o);
                continue;
            }
            try {
                to.writeInbound(o);
            } catch (Exception expected) {
                // the failing side records its exception; the handshake future carries it
            }
        }
    }

    @Test
    void classifiesARealJdkHandshakeWithAnExpiredClientCertificate() throws Exception {
        TestPki pki = TestPki.create(dir);
        Throwable failure = serverHandshakeFailure(pki, pki.expiredDevice("dev-old"));
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(failure), () -> chain(failure));
    }

    @Test
    void classifiesARealJdkHandshakeWithAnUntrustedClientCertificate() throws Exception {
        TestPki pki = TestPki.create(dir);
        Throwable failure = serverHandshakeFailure(pki, pki.untrustedDevice("dev-x"));
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, TlsFailureReason.classify(failure), () -> chain(failure));
    }

    @Test
    void classifiesAMissingClientCertificateAsAGenericFailure() throws Exception {
        TestPki pki = TestPki.create(dir);
        Throwable failure = serverHandshakeFailure(pki, null);
        assertEquals(TlsFailureReason.HANDSHAKE_FAILED, TlsFailureReason.classify(failure), () -> chain(failure));
    }

    @Test
    void classifiesPlainMqttOnTheTlsPort() throws Exception {
        TestPki pki = TestPki.create(dir);
        SslContext server = SslContextBuilder.forServer(pki.certFile().toFile(), pki.keyFile().toFile())
                .sslProvider(SslProvider.JDK).build();
        SslHandler ssl = server.newHandler(ByteBufAllocator.DEFAULT);
        EmbeddedChannel s = new EmbeddedChannel(ssl);
        try {
            ByteBuf connect =
                    Unpooled.copiedBuffer("\u0010\u0010\u0000\u0004MQTT\u0004\u0002\u0000\u003c\u0000\u0004abcd",
                    StandardCharsets.ISO_8859_1);
            try {
                s.writeInbound(connect);
            } catch (Exception expected) {
                // NotSslRecordException
            }
            Throwable failure = ssl.handshakeFuture().cause();
            assertNotNull(failure);
            assertEquals(TlsFailureReason.NOT_TLS, TlsFailureReason.classify(failure), () -> chain(failure));
        } finally {
            s.finishAndReleaseAll();
        }
    }

    private static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; t != null && i < 10; t = t.getCause(), i++) {
            b.append(" <- ").append(t.getClass().getName());
        }
        return b.toString();
    }
}
