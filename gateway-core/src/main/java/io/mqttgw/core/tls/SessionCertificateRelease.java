package io.mqttgw.core.tls;

import java.lang.reflect.Field;
import java.security.cert.Certificate;
import javax.net.ssl.SSLEngine;
import org.slf4j.LoggerFactory;

/**
 * Drops the peer certificate that Netty's OpenSSL session keeps for the connection's life. At handshake end the
 * engine copies the device's certificate out of BoringSSL into the session (a lazy wrapper around its DER: about
 * 550 B of heap per connection, the largest single item in the class histogram of an idle connection), whether or
 * not anyone asks for it. The gateway reads what it needs once, at that moment, and keeps its identity, expiry and
 * fingerprint in the {@code ConnectionContext}; afterwards nobody asks the session, so the copy is dead weight.
 * Netty offers no switch for this, so this writes the session's two private certificate fields, under the engine's
 * lock that guards them, as a freshly created session without a peer certificate has them; when a Netty version
 * changes those fields this turns itself off with one warning (the cost returns, nothing breaks). Event loop only.
 */
final class SessionCertificateRelease {
    private static final String SESSION_CLASS =
            "io.netty.handler.ssl.ReferenceCountedOpenSslEngine$DefaultOpenSslSession";
    private static final Certificate[] NONE = new Certificate[0];
    private static final String EXTENDED_CLASS = "io.netty.handler.ssl.ExtendedOpenSslSession";
    private static final Field PEER_CERTS;
    /** Netty wraps the session it hands out (to offer {@code ExtendedSSLSession}); the certificates are inside. */
    private static final Field WRAPPED;
    private static final Field X509_PEER_CERTS;
    private static final Object X509_NONE;

    static {
        Field peer = null;
        Field x509 = null;
        Field wrapped = null;
        Object x509None = null;
        try {
            Class<?> session = Class.forName(SESSION_CLASS);
            peer = session.getDeclaredField("peerCerts");
            x509 = session.getDeclaredField("x509PeerCerts");
            peer.setAccessible(true);
            x509.setAccessible(true);
            wrapped = Class.forName(EXTENDED_CLASS).getDeclaredField("wrapped");
            wrapped.setAccessible(true);
            x509None = java.lang.reflect.Array.newInstance(x509.getType().getComponentType(), 0);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LoggerFactory.getLogger(SessionCertificateRelease.class).warn(
                    "Netty's OpenSSL session changed shape ({}); device certificates stay in each TLS session "
                            + "(about 550 B per connection)", e.toString());
            peer = null;
            x509 = null;
            wrapped = null;
        }
        PEER_CERTS = peer;
        X509_PEER_CERTS = x509;
        WRAPPED = wrapped;
        X509_NONE = x509None;
    }

    private SessionCertificateRelease() {
    }

    /** Whether this Netty version's session can be trimmed (false turns {@link #release} into a no-op). */
    static boolean available() {
        return PEER_CERTS != null;
    }

    /** Removes the peer certificate from {@code engine}'s session; true when it did. */
    static boolean release(SSLEngine engine) {
        if (PEER_CERTS == null || engine == null) {
            return false;
        }
        try {
            Object session = engine.getSession();
            if (WRAPPED.getDeclaringClass().isInstance(session)) {
                session = WRAPPED.get(session);
            }
            if (!PEER_CERTS.getDeclaringClass().isInstance(session)) {
                return false;
            }
            synchronized (engine) {
                PEER_CERTS.set(session, NONE);
                X509_PEER_CERTS.set(session, X509_NONE);
            }
            return true;
        } catch (IllegalAccessException | RuntimeException e) {
            return false;
        }
    }
}
