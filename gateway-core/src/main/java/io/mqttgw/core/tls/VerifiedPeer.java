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
    /** Present when the verifier answered from its cache of verified certificates (a known device). */
    private static final String FROM_CACHE = "io.mqttgw.verified-from-cache";

    private VerifiedPeer() {
    }

    static void remember(SSLEngine engine, X509Certificate device, boolean fromCache) {
        SSLSession handshake = handshakeSession(engine);
        if (handshake != null) {
            handshake.putValue(KEY, device);
            if (fromCache) {
                handshake.putValue(FROM_CACHE, Boolean.TRUE);
            }
        }
    }

    /** Whether this handshake's certificate was known to the verifier; does not take anything off the session. */
    static boolean fromCache(SSLSession session) {
        return session.getValue(FROM_CACHE) != null;
    }

    /** The certificate verified during this handshake, or null (a resumed session verifies nothing). */
    static X509Certificate take(SSLSession session) {
        Object value = session.getValue(KEY);
        if (value != null) {
            session.removeValue(KEY);
        }
        if (session.getValue(FROM_CACHE) != null) {
            session.removeValue(FROM_CACHE);
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
