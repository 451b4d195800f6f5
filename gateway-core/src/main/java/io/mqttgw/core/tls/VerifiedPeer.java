package io.mqttgw.core.tls;

import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.util.concurrent.FastThreadLocal;
import java.security.cert.X509Certificate;
import java.util.IdentityHashMap;
import java.util.Map;
import javax.net.ssl.SSLEngine;

/**
 * Hands the device certificate the trust manager verified to {@link TlsHandshakeHandler}. The certificate object is
 * the one the verifier was handed, so nothing is parsed a second time (and nothing at all when the verifier read it
 * from its DER). The hand-over is a per-event-loop map keyed by the handshake's engine, not a value on its
 * {@code SSLSession}: a value there makes the OpenSSL session allocate its key-value table, which then stays with the
 * connection for its whole life (about 100 B per connection, measured in the class histogram). An entry lives from
 * the trust manager's answer to the handshake-completion event of the same engine, so a map holds at most its loop's
 * handshakes in flight. The key is chosen so that the hand-over costs the engine's lock nothing (see {@link #key}).
 * Event loop only: the OpenSSL engine verifies on the thread that unwraps (no delegated tasks), and so does Netty's
 * JDK engine with its default immediate task executor; on any other thread nothing is found and the handler
 * falls back to the session's DER.
 */
final class VerifiedPeer {

    private static final FastThreadLocal<Map<Object, Handed>> IN_FLIGHT = new FastThreadLocal<>() {
        @Override
        protected Map<Object, Handed> initialValue() {
            return new IdentityHashMap<>();
        }
    };

    private VerifiedPeer() {
    }

    static void remember(SSLEngine engine, X509Certificate device, DeviceCertificateVerifier.Verdict verdict,
                         CertificateIdentities.Named named) {
        if (engine != null) {
            IN_FLIGHT.get().put(key(engine), new Handed(device, verdict, named));
        }
    }

    /**
     * Whether this handshake's certificate was known to the verifier. Takes nothing: {@link #take} comes after it
     * at the same completion event, and a certificate not handed over would be read again from the session (and,
     * as nothing verified it in this handshake, verified again).
     */
    static boolean fromCache(SSLEngine engine) {
        Handed verified = IN_FLIGHT.get().get(key(engine));
        return verified != null && verified.verdict().fromCache();
    }

    /**
     * The certificate verified during this handshake and the verifier's answer, or null (a resumed session verifies
     * nothing).
     */
    static Handed take(SSLEngine engine) {
        return IN_FLIGHT.get().remove(key(engine));
    }

    /**
     * What the handshake handler takes over: the device certificate, the verifier's answer and the identity the trust
     * manager read (null in tests that hand over a certificate alone: then the handler reads it).
     */
    record Handed(X509Certificate certificate, DeviceCertificateVerifier.Verdict verdict,
                  CertificateIdentities.Named named) {
    }

    /** Drops what a failed handshake left. */
    static void forget(SSLEngine engine) {
        IN_FLIGHT.get().remove(key(engine));
    }

    /**
     * The OpenSSL engine runs the trust manager inside its own synchronized {@code unwrap}, and HotSpot inflates a
     * held lock to store an identity hash: keyed by the engine, every handshake made one ObjectMonitor (JFR counted
     * 3,500 for 3,500 handshakes), a native allocation that lives until the monitor deflater frees it. The engine's
     * session object is the engine's for life and unlocked at that point, so it keys the entry instead. The JDK engine
     * locks with a {@code ReentrantLock} and keys by itself.
     */
    private static Object key(SSLEngine engine) {
        return engine instanceof ReferenceCountedOpenSslEngine ? engine.getSession() : engine;
    }

    /** Entries on the calling thread: handshakes verified and not completed yet (tests). */
    static int inFlight() {
        return IN_FLIGHT.get().size();
    }
}
