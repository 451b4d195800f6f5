package io.mqttgw.core.tls;

import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.internal.tcnative.SSL;
import java.util.Locale;
import javax.net.ssl.SSLEngine;

/**
 * What a completed TLS handshake cost the node, in three classes that differ by about a factor of two each
 * (docs/benchmarks/history.md, "Storms and handshake CPU after the merge"): a full handshake with a device certificate
 * the
 * verifier had to check, a full handshake of a known device (the lean verifier's cache of verified certificates
 * answered: key exchange and the server's signature, no certificate signature), and a resumed session (no
 * certificate, no signature). Admission charges every new connection as {@link #FULL} and gives back the difference
 * once it knows the kind.
 */
public enum HandshakeKind {
    FULL, KNOWN_DEVICE, RESUMED;

    /** The label of the meters that count handshakes by kind. */
    public final String label = name().toLowerCase(Locale.ROOT).replace('_', '-');

    /**
     * The kind of the handshake that just completed on {@code engine}; called on the channel's event loop at the
     * handshake-completion event, before {@link TlsHandshakeHandler} takes the verified certificate.
     * Resumption is read from BoringSSL ({@code SSL_session_reused}); the JDK engine reports every handshake as full.
     */
    public static HandshakeKind of(SSLEngine engine) {
        if (resumed(engine)) {
            return RESUMED;
        }
        return VerifiedPeer.fromCache(engine) ? KNOWN_DEVICE : FULL;
    }

    /** Whether the handshake completed on {@code engine} resumed a session; always false on the JDK engine. */
    static boolean resumed(SSLEngine engine) {
        return engine instanceof ReferenceCountedOpenSslEngine openSsl && SSL.isSessionReused(openSsl.sslPointer());
    }
}
