package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLHandshakeException;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failed handshake is counted, logged within the event-log budget with the verifier's words, and closed; after a
 * successful one the session tickets go out with the first flush in one pass, and the device resumes with one.
 */
class TlsHandshakeHandlerTest {
    private static final byte[] CONNACK = {0x20, 0x02, 0x00, 0x00};

    @TempDir
    Path dir;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private AbstractAppender appender;
    private LoggerConfig events;

    @BeforeEach
    void captureEventLog() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        appender = new AbstractAppender("tls-test", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        events = new LoggerConfig("io.mqttgw.events", Level.INFO, false);
        events.addAppender(appender, Level.INFO, null);
        configuration.addLogger("io.mqttgw.events", events);
        context.updateLoggers();
    }

    @AfterEach
    void restore() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger("io.mqttgw.events");
        context.updateLoggers();
        appender.stop();
    }

    /** The build's loggers are asynchronous: a line reaches the appender on the logging thread, a little later. */
    private void awaitLines(int count) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (lines.size() < count && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
    }

    private static SslHandshakeCompletionEvent failed(Throwable cause) {
        SSLHandshakeException wrapper = new SSLHandshakeException("General OpenSslEngine problem");
        wrapper.initCause(cause);
        return new SslHandshakeCompletionEvent(wrapper);
    }

    @Test
    void countsLogsAndClosesARefusedHandshakeWithControlCharactersEscaped() throws InterruptedException {
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.attr(ConnectionContext.KEY).set(new ConnectionContext("tls"));
        channel.pipeline().addLast(new TlsHandshakeHandler(new CertificateIdentities("cn"), () -> null, metrics,
                new EventLog(10)));

        channel.pipeline().fireUserEventTriggered(failed(CertificateRefusals.unknownCa(
                "no CA issued CN=evil\nforged line")));

        assertEquals(1, metrics.tlsFailures(TlsFailureReason.CERTIFICATE_UNKNOWN_CA));
        assertFalse(channel.isActive());
        awaitLines(1);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("reason=certificate_unknown_ca"), lines.get(0));
        assertTrue(lines.get(0).contains("no CA issued CN=evil\\nforged line"), lines.get(0));
        assertFalse(lines.get(0).contains("\n"), "a device cannot start a log line of its own");
    }

    @Test
    void logsNoMoreThanTheEventBudgetInAStorm() throws InterruptedException {
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        TlsHandshakeHandler handler = new TlsHandshakeHandler(new CertificateIdentities("cn"), () -> null, metrics,
                new EventLog(3));
        for (int i = 0; i < 50; i++) {
            EmbeddedChannel channel = new EmbeddedChannel();
            channel.attr(ConnectionContext.KEY).set(new ConnectionContext("tls"));
            channel.pipeline().addLast(handler);
            channel.pipeline().fireUserEventTriggered(failed(CertificateRefusals.expired("expired")));
        }
        assertEquals(50, metrics.tlsFailures(TlsFailureReason.CERTIFICATE_EXPIRED));
        awaitLines(3);
        Thread.sleep(500);
        // one-second windows: a slow machine may cross into a second window, never more than a few
        assertTrue(lines.size() >= 3 && lines.size() <= 9, "lines logged: " + lines.size());
    }

    /**
     * 2,048 B is tcnative's default for the engine's buffer of bytes written outside a wrap, 128 B the density
     * profile's: the server's flight, the held tickets and the resumed handshake must not depend on it.
     */
    @ParameterizedTest
    @ValueSource(ints = {2048, 128})
    void sendsTheHeldSessionTicketsWithTheFirstFlushInOnePassThenLeaves(int engineBuffer) throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "BoringSSL is the engine that holds TLS 1.3 tickets for the first write");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        SslContextStore store = new SslContextStore(TestGateway.tls(pki, dir).config().tls(),
                new CertificateIdentities("cn"), metrics);
        ((ReferenceCountedOpenSslContext) store.current()).setBioNonApplicationBufferSize(engineBuffer);
        SslContext deviceTls = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .protocols("TLSv1.3").keyManager(TestPki.keys(pki.device("ticket-1"))).trustManager(pki.trust())
                .build();
        try {
            EmbeddedChannel device = new EmbeddedChannel();
            EmbeddedChannel server = handshake(store, metrics, deviceTls, device);
            try {
                assertTrue(server.pipeline().get(SslHandler.class).handshakeFuture().isSuccess());
                assertEquals("ticket-1", ConnectionContext.of(server).certificateIdentity());
                assertNotNull(server.pipeline().get(TlsHandshakeHandler.class), "stays for the first flush");
                ByteBufAllocator allocator = server.config().getAllocator();

                server.writeAndFlush(Unpooled.wrappedBuffer(CONNACK));

                // 43 buffers before: the engine gave out the two tickets only as far as a CONNACK-sized buffer reached
                int buffers = server.outboundMessages().size();
                assertTrue(buffers <= 2, "buffers written for the tickets and the CONNACK: " + buffers);
                assertSame(allocator, server.config().getAllocator(), "the channel's own allocator again");
                assertNull(server.pipeline().get(TlsHandshakeHandler.class), "its phase ends with the first flush");
                pass(server, device);
                ByteBuf received = device.readInbound();
                try {
                    assertEquals(ByteBufUtil.hexDump(CONNACK), ByteBufUtil.hexDump(received));
                } finally {
                    received.release();
                }
            } finally {
                server.finishAndReleaseAll();
                device.finishAndReleaseAll();
            }

            // the device comes back with one of those tickets
            EmbeddedChannel again = new EmbeddedChannel();
            EmbeddedChannel resumed = handshake(store, metrics, deviceTls, again);
            try {
                assertTrue(resumed.pipeline().get(SslHandler.class).handshakeFuture().isSuccess());
                assertTrue(HandshakeKind.resumed(resumed.pipeline().get(SslHandler.class).engine()), "resumed");
                assertEquals("ticket-1", ConnectionContext.of(resumed).certificateIdentity());
            } finally {
                resumed.finishAndReleaseAll();
                again.finishAndReleaseAll();
            }
        } finally {
            store.close();
        }
    }

    /**
     * A full handshake reads the device's name once, in the trust manager, and hands it over with the certificate:
     * the handler here is told to read another kind of identity (a SAN URI the certificate does not have), so a second
     * reading would leave the connection without one.
     */
    @Test
    void takesTheIdentityTheTrustManagerReadInsteadOfReadingItAgain() throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "BoringSSL's engine verifies on the event loop, where the hand-over is");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        SslContextStore store = new SslContextStore(TestGateway.tls(pki, dir).config().tls(),
                new CertificateIdentities("cn"), metrics);
        SslContext deviceTls = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .protocols("TLSv1.3").keyManager(TestPki.keys(pki.device("read-once"))).trustManager(pki.trust())
                .build();
        EmbeddedChannel device = new EmbeddedChannel();
        EmbeddedChannel server = handshake(store, metrics, deviceTls, device, new CertificateIdentities("san-uri"));
        try {
            assertTrue(server.pipeline().get(SslHandler.class).handshakeFuture().isSuccess());
            assertEquals("read-once", ConnectionContext.of(server).certificateIdentity());
        } finally {
            server.finishAndReleaseAll();
            device.finishAndReleaseAll();
            store.close();
        }
    }

    /**
     * The device certificate's SHA-256 (the verifier's cache key and the connection's fingerprint) is computed once per
     * full handshake and handed over with the verdict, not computed again by the handler; a resumed handshake, which
     * verifies the session's certificate again, computes it once too. Counted on this thread, where the embedded
     * channels run both the trust manager and the handler.
     */
    @Test
    void fingerprintsTheDeviceCertificateOncePerHandshake() throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "BoringSSL's engine verifies on the event loop, where the hand-over is");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        SslContextStore store = new SslContextStore(TestGateway.tls(pki, dir).config().tls(),
                new CertificateIdentities("cn"), metrics);
        SslContext deviceTls = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .protocols("TLSv1.3").keyManager(TestPki.keys(pki.device("hashed-once"))).trustManager(pki.trust())
                .build();
        try {
            for (String kind : new String[] {"full", "resumed"}) {
                long before = CertificateSha256.computedOnThisThread();
                EmbeddedChannel device = new EmbeddedChannel();
                EmbeddedChannel server = handshake(store, metrics, deviceTls, device);
                try {
                    assertTrue(server.pipeline().get(SslHandler.class).handshakeFuture().isSuccess(), kind);
                    assertEquals("resumed".equals(kind),
                            HandshakeKind.resumed(server.pipeline().get(SslHandler.class).engine()), kind);
                    assertNotNull(ConnectionContext.of(server).certificateSha256(), kind);
                    assertEquals(1, CertificateSha256.computedOnThisThread() - before, kind + " handshake");
                    // the resumed one needs the tickets this connection's first flush sends
                    server.writeAndFlush(Unpooled.wrappedBuffer(CONNACK));
                    pass(server, device);
                    ByteBuf received = device.readInbound();
                    received.release();
                } finally {
                    server.finishAndReleaseAll();
                    device.finishAndReleaseAll();
                }
            }
        } finally {
            store.close();
        }
    }

    /** The server's TLS handlers on an embedded channel, after a real BoringSSL handshake with {@code device}. */
    private static EmbeddedChannel handshake(SslContextStore store, GatewayMetrics metrics, SslContext deviceTls,
                                             EmbeddedChannel device) {
        return handshake(store, metrics, deviceTls, device, new CertificateIdentities("cn"));
    }

    private static EmbeddedChannel handshake(SslContextStore store, GatewayMetrics metrics, SslContext deviceTls,
                                             EmbeddedChannel device, CertificateIdentities handlerIdentities) {
        EmbeddedChannel server = new EmbeddedChannel();
        server.attr(ConnectionContext.KEY).set(new ConnectionContext("tls"));
        server.pipeline().addLast(store.current().newHandler(server.alloc()), new TlsHandshakeHandler(
                handlerIdentities, store::verifier, metrics, new EventLog(10)));
        device.pipeline().addLast(deviceTls.newHandler(device.alloc(), "localhost", 8883));
        for (int round = 0; round < 10 && !server.pipeline().get(SslHandler.class).handshakeFuture().isDone();
             round++) {
            pass(device, server);
            pass(server, device);
        }
        return server;
    }

    /** Everything {@code from} wrote, read by {@code to}. */
    private static void pass(EmbeddedChannel from, EmbeddedChannel to) {
        for (Object bytes = from.readOutbound(); bytes != null; bytes = from.readOutbound()) {
            to.writeInbound(bytes);
        }
        from.runPendingTasks();
        to.runPendingTasks();
    }
}
