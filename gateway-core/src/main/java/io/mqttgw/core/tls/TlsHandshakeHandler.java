package io.mqttgw.core.tls;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.util.LazyX509Certificate;
import java.io.ByteArrayInputStream;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Ends the TLS phase: on success records the verified client certificate and its identity in the
 * {@link ConnectionContext} and removes itself; on failure counts the reason, logs it (rate-limited) and closes.
 *
 * <p>A handshake that verified no certificate but has one (a resumed session: TLS 1.3 ticket or session ID) has its
 * certificate verified again by the current TLS context's verifier. The session was verified when it began, maybe an
 * hour ago, maybe on another node, and the CA file and CRLs may have changed since: without this a revoked device, one
 * whose certificate has expired, or one of a CA taken out of {@code listener.tls.ca-file} would resume until the
 * session timeout. For a device this node verified before, the lean verifier answers from its cache (dates and CRLs
 * again, no signature). A refusal is counted and logged with its reason like a refused handshake, and the connection
 * is closed before any MQTT packet is read.
 *
 * <p>After a successful handshake it stays for the connection's first flush (the CONNACK, or a refusal), which carries
 * the TLS 1.3 session tickets the engine held back, and leaves the pipeline with it ({@link #flush}). No
 * per-channel state (it caches only the floored allocator), shared by all channels of a listener; runs on each
 * channel's event loop.
 */
@Sharable
public final class TlsHandshakeHandler extends ChannelDuplexHandler {
    private final CertificateIdentities identities;
    private final Supplier<DeviceCertificateVerifier> currentVerifier;
    private final GatewayMetrics metrics;
    private final EventLog events;
    private volatile TicketFlightAllocator flight;

    /**
     * @param currentVerifier the verifier of the TLS context new connections get now (null without
     *                        {@code listener.tls.ca-file}), for resumed sessions
     */
    public TlsHandshakeHandler(CertificateIdentities identities, Supplier<DeviceCertificateVerifier> currentVerifier,
                               GatewayMetrics metrics, EventLog events) {
        this.identities = identities;
        this.currentVerifier = currentVerifier;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            String deviceAlert = DeviceAlertHandler.leave(ctx.pipeline());
            if (done.isSuccess()) {
                Peer peer;
                try {
                    peer = peer(ctx);
                } catch (CertificateException e) {
                    // a resumed session the current verifier refuses, or a certificate the JDK cannot parse (the
                    // engine verified this very encoding; it must not pass as no certificate)
                    TlsFailureReason reason = TlsFailureReason.classify(e);
                    metrics.tlsHandshakeFailed(reason);
                    events.tlsRefused(ConnectionContext.of(ctx.channel()).remoteAddress(), reason.label(),
                            (resumed(ctx) ? "resumed session: " : "") + detail(e));
                    DeviceDisconnector.close(ctx.channel(), DisconnectReason.TLS_HANDSHAKE_FAILED);
                    ctx.fireUserEventTriggered(evt);
                    return;
                }
                metrics.tlsHandshakeSucceeded(resumed(ctx));
                if (peer != null) {
                    ConnectionContext.of(ctx.channel()).verifiedCertificate(peer.certificate(), peer.identity(),
                            peer.notAfterMillis(), peer.sha256(), peer.revocation());
                }
                EngineTrim.trim(ctx.pipeline().get(SslHandler.class).engine());
            } else {
                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                if (ssl != null) {
                    VerifiedPeer.forget(ssl.engine());
                }
                TlsFailureReason reason = TlsFailureReason.classify(done.cause());
                if (reason == TlsFailureReason.PEER_CLOSED
                        && ConnectionContext.of(ctx.channel()).closeReason() != null) {
                    // the gateway closed it before the handshake ended (an untrusted proxy, a PROXY header error, an
                    // admission refusal): that decision is counted and logged under its own reason, once
                    ctx.fireUserEventTriggered(evt);
                    return;
                }
                String detail = detail(done.cause());
                if (deviceAlert != null
                        && (reason == TlsFailureReason.HANDSHAKE_FAILED || reason == TlsFailureReason.PEER_CLOSED)) {
                    // the engine's own report of it may be a decryption error (TLS 1.3): the alert says what happened
                    reason = TlsFailureReason.DEVICE_ALERT;
                    detail = "device sent alert " + deviceAlert + "; engine: " + detail;
                }
                metrics.tlsHandshakeFailed(reason);
                // rate-limited by the event log: a wrong server key or CA shows in the log, a storm costs a few lines
                events.tlsRefused(ConnectionContext.of(ctx.channel()).remoteAddress(), reason.label(), detail);
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.TLS_HANDSHAKE_FAILED);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The first flush after the handshake, with room for the session tickets in one pass through the engine
     * ({@link TicketFlightAllocator}), then this handler's phase is over. The allocator is the channel's again before
     * this returns (the flush runs synchronously on the event loop; a buffer another thread takes from the channel
     * meanwhile is only larger). A flush before the handshake has succeeded passes through.
     */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
            ctx.flush();
            return;
        }
        Channel channel = ctx.channel();
        ByteBufAllocator allocator = channel.config().getAllocator();
        channel.config().setAllocator(flightAllocator(allocator));
        try {
            ctx.flush();
        } finally {
            channel.config().setAllocator(allocator);
        }
        if (!ctx.isRemoved()) {
            ctx.pipeline().remove(this);
        }
    }

    /** The floored allocator over the channels' own, made once (the channels of a listener share one allocator). */
    private TicketFlightAllocator flightAllocator(ByteBufAllocator allocator) {
        TicketFlightAllocator flight = this.flight;
        if (flight == null || !flight.wraps(allocator)) {
            // a race here only makes one more, equally good
            flight = new TicketFlightAllocator(allocator);
            this.flight = flight;
        }
        return flight;
    }

    /** The most specific message in the cause chain: the verifier's refusal rather than the engine's wrapper. */
    static String detail(Throwable failure) {
        String detail = null;
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t.getMessage() != null) {
                detail = t.getMessage();
            }
        }
        return detail == null ? String.valueOf(failure) : detail;
    }

    /** Whether the handshake resumed a session (cheaper: no certificate verification, no key exchange signature). */
    private static boolean resumed(ChannelHandlerContext ctx) {
        return HandshakeKind.resumed(ctx.pipeline().get(SslHandler.class).engine());
    }

    /** What the connection keeps of the device's certificate. */
    private record Peer(X509Certificate certificate, String identity, long notAfterMillis, byte[] sha256,
                        RevocationPath revocation) {
    }

    /**
     * The device's certificate and what is read from it. After a full handshake the certificate is the object the
     * verifier was handed (parsed only if the verifier needed that); after a resumed one (nothing verified in this
     * handshake) a private lazy one over its DER, verified again ({@link #verifyResumed}). Never the
     * session's own: the OpenSSL engine's session hands out lazy wrappers that parse on first use and then keep the
     * parsed certificate (X.500 names, OIDs, extensions and their byte copies: about 3 KB of heap, measured) inside the
     * session, which lives as long as the connection. Either object is dropped once CONNECT is decided
     * ({@link ConnectionContext}). The identity and notAfter come straight from the DER when the certificate has the
     * common shape ({@link CertificateDer}), so a resumed handshake parses nothing; otherwise through the JDK.
     */
    private Peer peer(ChannelHandlerContext ctx) throws CertificateException {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        // the verifier's own object; asking the engine again would build (and maybe parse) a new one
        VerifiedPeer.Handed handed = VerifiedPeer.take(ssl.engine());
        X509Certificate certificate = handed == null ? null : handed.certificate();
        RevocationPath revocation = handed == null ? null : handed.verdict().path();
        byte[] sha256 = handed == null ? null : handed.verdict().sha256();
        CertificateIdentities.Named named = handed == null ? null : handed.named();
        boolean verifiersOwn = certificate != null;
        if (certificate == null) {
            Certificate[] chain;
            try {
                chain = ssl.engine().getSession().getPeerCertificates();
            } catch (SSLPeerUnverifiedException e) {
                // client-auth optional or none, and the device sent no certificate
                return null;
            }
            if (chain.length == 0 || !(chain[0] instanceof X509Certificate)) {
                return null;
            }
            X509Certificate[] copies = new X509Certificate[chain.length];
            DeviceCertificateVerifier.Verdict verdict = verifyResumed(chain, copies);
            revocation = verdict == null ? null : verdict.path();
            sha256 = verdict == null ? null : verdict.sha256();
            certificate = copies[0];
        }
        byte[] der = certificate.getEncoded();
        if (sha256 == null) {
            // a verifier that does not fingerprint (pkix), or none
            sha256 = CertificateSha256.of(der);
        }
        if (named != null) {
            // read by the trust manager in this handshake: the name is not read a second time
            return new Peer(certificate, named.identity(), named.notAfterMillis(), sha256, revocation);
        }
        CertificateDer.Facts facts = identities.fromCommonName() ? CertificateDer.read(der) : null;
        if (facts != null) {
            return new Peer(certificate, facts.commonName(), facts.notAfterMillis(), sha256, revocation);
        }
        if (!verifiersOwn) {
            // with this loop's factory, not the lazy copy's, which all threads share
            certificate = (X509Certificate) X509.get().generateCertificate(new ByteArrayInputStream(der));
        }
        return new Peer(certificate, identities.identityOf(certificate), certificate.getNotAfter().getTime(), sha256,
                revocation);
    }

    /**
     * Verifies the chain of a resumed session with the current verifier, on private lazy copies of its DER (the
     * session's own certificates would keep their parse for the connection's life), put in {@code chain}. Returns the
     * verifier's answer (the revocation path, and the fingerprint if it computed one), or null without a verifier.
     */
    private DeviceCertificateVerifier.Verdict verifyResumed(Certificate[] session, X509Certificate[] chain)
            throws CertificateException {
        for (int i = 0; i < session.length; i++) {
            chain[i] = new LazyX509Certificate(session[i].getEncoded());
        }
        DeviceCertificateVerifier verifier = currentVerifier.get();
        if (verifier == null) {
            return null;
        }
        try {
            return verifier.check(chain, System.currentTimeMillis());
        } catch (RuntimeException e) {
            // as in DeviceTrustManager: a certificate the JDK cannot parse is a counted refusal, not a crash
            throw CertificateRefusals.malformed("unreadable client certificate of a resumed session: " + e);
        }
    }


    /** CertificateFactory is not documented as thread-safe: one per event loop thread. */
    private static final ThreadLocal<CertificateFactory> X509 = ThreadLocal.withInitial(() -> {
        try {
            return CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
        }
    });
}
