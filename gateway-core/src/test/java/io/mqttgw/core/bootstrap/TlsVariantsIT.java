package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS 1.2 and 1.3, ECDSA and RSA keys, a listener restricted to one protocol version, and the key-exchange groups
 * the listener accepts.
 */
class TlsVariantsIT {
    @TempDir
    Path dir;

    @Test
    void acceptsTls12AndTls13Devices() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
                try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-v")),
                        gateway.tlsPort(), protocol)) {
                    assertEquals(0, raw.connect("dev-v", 60));
                    assertEquals(protocol, ((SSLSocket) raw.socket()).getSession().getProtocol());
                }
            }
        }
    }

    @Test
    void servesRsaServerKeyAndRsaDeviceCertificates() throws Exception {
        TestPki pki = TestPki.createRsa(dir.resolve("rsa"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-rsa")),
                    gateway.tlsPort())) {
                assertEquals(0, raw.connect("dev-rsa", 60));
                assertEquals("RSA", ((SSLSocket) raw.socket()).getSession().getPeerCertificates()[0].getPublicKey()
                        .getAlgorithm());
            }
        }
    }

    @Test
    void refusesTls12WhenTheListenerOffersOnlyTls13() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.protocols", "TLSv1.3").start()) {
            assertThrows(IOException.class, () -> RawMqttConnection.tls(pki.clientContext(pki.device("dev-old")),
                    gateway.tlsPort(), "TLSv1.2").close());
        }
    }

    @Test
    void readsTheIdentityFromTheSanUriWhenConfigured() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("identity.source", "san-uri")
                .with("identity.client-id-policy", "use-identity").start()) {
            try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.deviceWithSans("cn-name",
                    "urn:device:sensor-42", "sensor-42.fleet.example")), gateway.tlsPort())) {
                assertEquals(0, raw.connect("whatever-the-device-says", 60));
                long deadline = System.currentTimeMillis() + 5000;
                while (gateway.registry().find("urn:device:sensor-42") == null
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(true, gateway.registry().find("urn:device:sensor-42") != null,
                        "the session is registered under the SAN URI identity");
            }
        }
    }

    @Test
    void acceptsAPostQuantumHybridKeyExchangeByDefault() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            assertTrue(handshakes(pki, gateway.tlsPort(), "X25519MLKEM768"));
        }
    }

    @Test
    void offersOnlyTheConfiguredKeyExchangeGroups() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.groups", "x25519,secp256r1").start()) {
            assertFalse(handshakes(pki, gateway.tlsPort(), "X25519MLKEM768"), "a group the listener leaves out");
            assertTrue(handshakes(pki, gateway.tlsPort(), "X25519MLKEM768", "x25519"), "the device's next choice");
            assertTrue(handshakes(pki, gateway.tlsPort(), "secp256r1"));
        }
    }

    /** Whether a BoringSSL client (Netty's OpenSSL engine) offering exactly {@code groups} completes TLS 1.3. */
    private static boolean handshakes(TestPki pki, int port, String... groups) throws Exception {
        SslContext context = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL_REFCNT)
                .keyManager(TestPki.keys(pki.device("dev-kx"))).trustManager(pki.trust()).protocols("TLSv1.3")
                .option(OpenSslContextOption.GROUPS, groups).build();
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        // kept here, not looked up in the pipeline later: a refused handshake closes the channel, and a closed
        // channel's pipeline no longer holds its handlers
        AtomicReference<SslHandler> tls = new AtomicReference<>();
        try {
            Channel channel = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            SslHandler handler = context.newHandler(ch.alloc(), "localhost", port);
                            tls.set(handler);
                            ch.pipeline().addLast(handler);
                        }
                    }).connect("127.0.0.1", port).sync().channel();
            Future<Channel> handshake = tls.get().handshakeFuture();
            assertTrue(handshake.await(30, java.util.concurrent.TimeUnit.SECONDS), "handshake ended");
            channel.close().sync();
            return handshake.isSuccess();
        } finally {
            loop.shutdownGracefully(0, 5, java.util.concurrent.TimeUnit.SECONDS).sync();
            ReferenceCountUtil.release(context);
        }
    }
}
