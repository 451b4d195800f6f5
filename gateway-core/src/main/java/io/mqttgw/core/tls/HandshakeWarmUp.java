package io.mqttgw.core.tls;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual-TLS handshakes between in-memory engines before the TLS listener opens ({@code
 * listener.tls.warm-up-handshakes}), so that the devices of the first minute after a restart (behind a balancer,
 * usually all of the node's devices at once) meet compiled code instead of the interpreter: a cold node reached the
 * offered handshake rate only some seconds into a ramp (issue 15).
 *
 * <p>The server side is a {@link SslContextStore} of the listener's own settings (engine, protocols, groups, client
 * auth, verifier) built on a throwaway CA, server and device certificate made here, written to a temporary directory
 * that is deleted afterwards, so the trust manager and the verifier run their real code; the client side is the same
 * engine kind, offering the listener's classical groups as devices do. Every second handshake resumes the one before
 * it. Both ends are {@link SslHandler}s on {@link EmbeddedChannel}s. Nothing of it reaches the node's metrics,
 * registry or event log. Startup thread only.
 */
public final class HandshakeWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeWarmUp.class);
    private static final String POST_QUANTUM_HYBRID = "X25519MLKEM768";
    /** Exchanges between the two ends before a handshake counts as stuck; a TLS 1.3 handshake needs about four. */
    private static final int MAX_ROUNDS = 32;

    /** What a warm-up did: handshakes completed (full and resumed), failed, and its wall time. */
    public record Result(int full, int resumed, int failed, Duration took) {
    }

    private HandshakeWarmUp() {
    }

    /**
     * Runs {@code handshakes} handshakes with {@code listener}'s settings; never throws: a warm-up that cannot run is
     * logged and skipped, it only costs the first devices some speed.
     */
    public static Result run(GatewayConfig.TlsListener listener, int handshakes) {
        long start = System.nanoTime();
        Path dir = null;
        SslContextStore server = null;
        SslContext client = null;
        int full = 0;
        int resumed = 0;
        int failed = 0;
        try {
            dir = Files.createTempDirectory("mqttgw-warm-up");
            Credentials credentials = Credentials.write(dir);
            server = new SslContextStore(listener.withFiles(credentials.serverCert, credentials.serverKey,
                    credentials.ca), new GatewayMetrics(new SimpleMeterRegistry()));
            client = clientContext(listener, server.provider(), credentials);
            for (int i = 0; i < handshakes; i++) {
                // pairs of handshakes share a peer name, and with it the client's cached session
                switch (handshake(server.current(), client, "warm-up-" + i / 2)) {
                    case FULL -> full++;
                    case RESUMED -> resumed++;
                    case FAILED -> failed++;
                }
            }
        } catch (IOException | GeneralSecurityException | OperatorCreationException | RuntimeException e) {
            LOG.warn("TLS warm-up skipped after {} handshakes: {}", full + resumed + failed, e.toString());
        } finally {
            ReferenceCountUtil.release(client);
            if (server != null) {
                server.close();
            }
            delete(dir);
        }
        Result result = new Result(full, resumed, failed, Duration.ofNanos(System.nanoTime() - start));
        LOG.info("TLS warm-up before the listener opens: {} full and {} resumed handshakes, {} failed, in {} ms",
                full, resumed, failed, result.took().toMillis());
        return result;
    }

    private enum Outcome { FULL, RESUMED, FAILED }

    private static Outcome handshake(SslContext serverContext, SslContext clientContext, String peer) {
        EmbeddedChannel server = new EmbeddedChannel();
        EmbeddedChannel client = new EmbeddedChannel();
        try {
            SslHandler serverTls = serverContext.newHandler(server.alloc());
            SslHandler clientTls = clientContext.newHandler(client.alloc(), peer, 8883);
            server.pipeline().addLast(serverTls);
            client.pipeline().addLast(clientTls);
            for (int round = 0; round < MAX_ROUNDS && !(serverTls.handshakeFuture().isDone()
                    && clientTls.handshakeFuture().isDone() && !pending(client) && !pending(server)); round++) {
                pass(client, server);
                pass(server, client);
            }
            if (serverTls.handshakeFuture().isSuccess() && clientTls.handshakeFuture().isSuccess()) {
                // a CONNECT's and a CONNACK's worth of records each way; BoringSSL sends its TLS 1.3 tickets ahead of
                // the server's first record, so the client has a session to resume in the next handshake
                client.writeAndFlush(client.alloc().buffer(32).writeZero(32));
                pass(client, server);
                server.writeAndFlush(server.alloc().buffer(4).writeZero(4));
                pass(server, client);
            }
            boolean resumed = HandshakeKind.resumed(serverTls.engine());
            // the trust manager's hand-over to TlsHandshakeHandler, which is not in this pipeline
            VerifiedPeer.forget(serverTls.engine());
            if (!serverTls.handshakeFuture().isSuccess() || !clientTls.handshakeFuture().isSuccess()) {
                return Outcome.FAILED;
            }
            return resumed ? Outcome.RESUMED : Outcome.FULL;
        } finally {
            client.finishAndReleaseAll();
            server.finishAndReleaseAll();
        }
    }

    private static boolean pending(EmbeddedChannel channel) {
        return !channel.outboundMessages().isEmpty();
    }

    /** Moves what {@code from} wrote into {@code to}'s inbound side. */
    private static void pass(EmbeddedChannel from, EmbeddedChannel to) {
        for (ByteBuf bytes = from.readOutbound(); bytes != null; bytes = from.readOutbound()) {
            to.writeInbound(bytes);
        }
        to.runPendingTasks();
    }

    private static SslContext clientContext(GatewayConfig.TlsListener listener, SslProvider provider,
                                            Credentials credentials) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(provider)
                .protocols(listener.protocols())
                .keyManager(credentials.deviceKey, credentials.deviceCert)
                .trustManager(credentials.caCert)
                .endpointIdentificationAlgorithm(null)
                // the client keeps the session of each peer name for the next handshake of the pair
                .sessionCacheSize(64)
                .sessionTimeout(300);
        if (provider != SslProvider.JDK) {
            List<String> classical = listener.groups().stream().filter(g -> !g.equals(POST_QUANTUM_HYBRID)).toList();
            builder.option(OpenSslContextOption.GROUPS,
                    (classical.isEmpty() ? listener.groups() : classical).toArray(String[]::new));
        }
        return builder.build();
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("could not delete the warm-up directory {}: {}", dir, e.toString());
        }
    }

    /** A P-256 CA, a server certificate and a device certificate of its, made for one warm-up. */
    private record Credentials(Path ca, Path serverCert, Path serverKey, X509Certificate caCert,
                               X509Certificate deviceCert, PrivateKey deviceKey) {
        static Credentials write(Path dir) throws GeneralSecurityException, OperatorCreationException, IOException {
            KeyPair caKeys = p256();
            KeyPair serverKeys = p256();
            KeyPair deviceKeys = p256();
            X500Name caName = new X500Name("CN=mqttgw warm-up CA");
            X509Certificate ca = certificate(caName, caName, caKeys.getPublic(), caKeys.getPrivate(), true, null);
            X509Certificate serverCert = certificate(caName, new X500Name("CN=localhost"), serverKeys.getPublic(),
                    caKeys.getPrivate(), false, KeyPurposeId.id_kp_serverAuth);
            X509Certificate device = certificate(caName, new X500Name("CN=warm-up"), deviceKeys.getPublic(),
                    caKeys.getPrivate(), false, KeyPurposeId.id_kp_clientAuth);
            Path caFile = pem(dir.resolve("ca.pem"), ca);
            Path certFile = pem(dir.resolve("server.pem"), serverCert);
            // PKCS#8: the curve named in the algorithm identifier, as a key written by openssl has it
            Path keyFile = pem(dir.resolve("server.key"), new JcaPKCS8Generator(serverKeys.getPrivate(), null));
            return new Credentials(caFile, certFile, keyFile, ca, device, deviceKeys.getPrivate());
        }

        private static KeyPair p256() throws GeneralSecurityException {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        }

        private static X509Certificate certificate(X500Name issuer, X500Name subject, PublicKey key,
                                                   PrivateKey signer, boolean ca, KeyPurposeId purpose)
                throws GeneralSecurityException, OperatorCreationException, IOException {
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(
                    now.toEpochMilli()).add(BigInteger.valueOf(subject.hashCode() & 0xffff)),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, key)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(ca ? KeyUsage.keyCertSign
                            : KeyUsage.digitalSignature));
            if (purpose != null) {
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            }
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
        }

        private static Path pem(Path file, Object object) throws IOException {
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
                 JcaPEMWriter pem = new JcaPEMWriter(out)) {
                pem.writeObject(object);
            }
            return file;
        }
    }
}
