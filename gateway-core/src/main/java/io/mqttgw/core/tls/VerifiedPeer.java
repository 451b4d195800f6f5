package io.mqttgw.core.tls;

import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * Hands the device certificate the trust manager verified to {@link TlsHandshakeHandler}, through a value on the
 * handshake's {@link SSLSession} that the handler takes (and removes) when the handshake completes. The certificate
 * object is the one the verifier already parsed, so the identity is read without parsing the DER a second time and
 * without asking the engine for the peer chain again (which builds new certificate objects, and with OpenSSL copies
 * the chain out of native memory). Nothing stays on the session after the handshake. Called on the channel's event
 * loop.
 */
final class VerifiedPeer {
    private static final String KEY = "io.mqttgw.verified-device-certificate";

    private VerifiedPeer() {
    }

    static void remember(SSLEngine engine, X509Certificate device) {
        SSLSession handshake = handshakeSession(engine);
        if (handshake != null) {
            handshake.putValue(KEY, device);
        }
    }

    /** The certificate verified during this handshake, or null (a resumed session verifies nothing). */
    static X509Certificate take(SSLSession session) {
        Object value = session.getValue(KEY);
        if (value != null) {
            session.removeValue(KEY);
        }
        return value instanceof X509Certificate certificate ? certificate : null;
    }

    private static SSLSession handshakeSession(SSLEngine engine) {
        try {
            return engine == null ? null : engine.getHandshakeSession();
        } catch (UnsupportedOperationException e) {
            return null;
        }
    }
}
