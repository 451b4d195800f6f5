package io.mqttgw.core.tls;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.protocol.ConnectionContext;
import io.mqttgw.core.protocol.DeviceDisconnector;
import io.mqttgw.core.protocol.DisconnectReason;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Ends the TLS phase: on success records the verified client certificate and its identity in the
 * {@link ConnectionContext} and removes itself; on failure counts the reason and closes. Stateless, shared by all
 * channels of a listener; runs on each channel's event loop.
 */
@Sharable
public final class TlsHandshakeHandler extends ChannelInboundHandlerAdapter {
    private final CertificateIdentities identities;
    private final GatewayMetrics metrics;

    public TlsHandshakeHandler(CertificateIdentities identities, GatewayMetrics metrics) {
        this.identities = identities;
        this.metrics = metrics;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (done.isSuccess()) {
                metrics.tlsHandshakeSucceeded(resumed(ctx));
                X509Certificate peer = peerCertificate(ctx);
                if (peer != null) {
                    ConnectionContext.of(ctx.channel()).verifiedCertificate(peer, identities.identityOf(peer));
                }
                ctx.pipeline().remove(this);
            } else {
                metrics.tlsHandshakeFailed(TlsFailureReason.classify(done.cause()));
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.TLS_HANDSHAKE_FAILED);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Whether the handshake resumed a session (cheaper: no certificate verification, no key exchange signature). */
    private static boolean resumed(ChannelHandlerContext ctx) {
        SSLEngine engine = ctx.pipeline().get(SslHandler.class).engine();
        if (engine instanceof ReferenceCountedOpenSslEngine openSsl) {
            return SSL.isSessionReused(openSsl.sslPointer());
        }
        return false;
    }

    private static X509Certificate peerCertificate(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException e) {
            // client-auth optional or none, and the device sent no certificate
            return null;
        }
    }
}
