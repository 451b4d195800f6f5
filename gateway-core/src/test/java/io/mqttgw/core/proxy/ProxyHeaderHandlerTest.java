package io.mqttgw.core.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.TrustedSources;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.TlsFailureReason;
import io.mqttgw.core.tls.TlsHandshakeHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection from outside the trusted ranges is closed before its TLS handshake, and that refusal is counted once,
 * as {@code untrusted_proxy}: the handshake it cut short is no TLS failure of the device (on-call would otherwise see
 * every misrouted balancer as a wave of {@code peer_closed}).
 */
class ProxyHeaderHandlerTest {
    @TempDir
    Path dir;

    @Test
    void countsAnUntrustedProxyOnceAndNotAsATlsFailure() throws Exception {
        TestPki pki = TestPki.create(dir);
        SslContext server = SslContextBuilder.forServer(pki.certFile().toFile(), pki.keyFile().toFile())
                .sslProvider(SslProvider.JDK).build();
        GatewayMetrics metrics = new GatewayMetrics(new SimpleMeterRegistry());
        // active before the handlers are added, as an accepted socket is when the listener's initializer runs
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.attr(ConnectionContext.KEY).set(new ConnectionContext("tls"));
        channel.pipeline().addLast(new HAProxyMessageDecoder(),
                new ProxyHeaderHandler(TrustedSources.parse(List.of("10.0.0.0/16")), 5_000),
                server.newHandler(channel.alloc()),
                new TlsHandshakeHandler(new CertificateIdentities("cn"), () -> null, metrics, new EventLog(10)));

        channel.pipeline().fireChannelActive();
        channel.runPendingTasks();

        assertFalse(channel.isActive());
        assertEquals(DisconnectReason.UNTRUSTED_PROXY, ConnectionContext.of(channel).closeReason());
        for (TlsFailureReason reason : TlsFailureReason.values()) {
            assertEquals(0, metrics.tlsFailures(reason), reason.label());
        }
        channel.finishAndReleaseAll();
    }
}
