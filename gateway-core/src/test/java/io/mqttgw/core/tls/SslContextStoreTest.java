package io.mqttgw.core.tls;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCounted;
import java.nio.file.Path;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenSSL contexts of the device listener are reference counted (no finalizer per connection): the
 * store gives up a replaced context at once, open engines keep theirs until they close, and close() gives up the
 * current one.
 */
class SslContextStoreTest {
    @TempDir
    Path dir;

    @Test
    void exportsTheServerCertificatesTimeLeftAndRefusesAnExpiredOneOnReload() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Instant now = Instant.now();
        pki.writeServer("CN=localhost", now.minus(80, ChronoUnit.DAYS), now.plus(10, ChronoUnit.DAYS));
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        SslContextStore store = new SslContextStore(TestGateway.tls(pki, dir).config().tls(),
                new CertificateIdentities("cn"), metrics);
        Gauge expiry = metrics.registry().find("mqttgw.tls.server.certificate.expiry").tag("listener", "tls").gauge();
        assertNotNull(expiry);
        assertEquals(Duration.ofDays(10).toSeconds(), expiry.value(), 120, "seconds until notAfter");
        assertNotNull(store.serverCertificateWarning());
        SslContext before = store.current();

        // an expired certificate put in place is refused: the node keeps serving with the one it has
        pki.writeServer("CN=localhost", now.minus(400, ChronoUnit.DAYS), now.minus(1, ChronoUnit.DAYS));
        assertFalse(store.reloadIfChanged());
        assertSame(before, store.current());
        assertEquals(1, metrics.registry().find("mqttgw.tls.reloads").tag("result", "failed").counter().count());
        assertEquals(Duration.ofDays(10).toSeconds(), expiry.value(), 120, "still the certificate in use");

        // a renewed one replaces it, and the gauge follows
        pki.writeServer("CN=localhost", now.minus(1, ChronoUnit.DAYS), now.plus(365, ChronoUnit.DAYS));
        assertTrue(store.reloadIfChanged());
        assertEquals(Duration.ofDays(365).toSeconds(), expiry.value(), 120);
        assertNull(store.serverCertificateWarning());
        store.close();
    }

    @Test
    void refusesToStartWithAnExpiredServerCertificate() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Instant now = Instant.now();
        pki.writeServer("CN=localhost", now.minus(400, ChronoUnit.DAYS), now.minusSeconds(60));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new SslContextStore(
                TestGateway.tls(pki, dir).config().tls(), new CertificateIdentities("cn"),
                new GatewayMetrics(new SimpleMeterRegistry())));
        assertTrue(e.getMessage().startsWith("listener.tls.cert-file=" + pki.certFile() + ": the server certificate"),
                e.getMessage());
    }

    @Test
    void aReplacedContextLivesUntilItsLastEngineIsReleased() throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "the OpenSSL engine is what is reference counted");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        SslContextStore store = new SslContextStore(TestGateway.tls(pki, dir).config().tls(),
                new CertificateIdentities("cn"), new GatewayMetrics(new SimpleMeterRegistry()));
        SslContext first = store.current();
        ReferenceCounted counted = assertInstanceOf(ReferenceCounted.class, first,
                "the listener uses the reference-counted engine");
        SSLEngine open = first.newEngine(ByteBufAllocator.DEFAULT);
        assertFalse(open instanceof OpenSslEngine, "the finalizing engine would put a Finalizer on every connection");

        pki.writeServer("CN=localhost,O=Rotated");
        assertTrue(store.reloadIfChanged());
        SslContext second = store.current();
        assertNotSame(first, second);
        assertEquals(1, counted.refCnt(), "the open engine still holds the replaced context");

        ((ReferenceCounted) open).release();
        assertEquals(0, counted.refCnt(), "the replaced context goes with its last engine");

        store.close();
        assertEquals(0, ((ReferenceCounted) second).refCnt(), "close gives up the current context");
    }
}
