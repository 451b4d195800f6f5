package io.mqttgw.core.identity;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;

/**
 * SHA-256 of a certificate's DER encoding, the fingerprint the verifier's cache, the connection's context and the
 * operator API use. One digest per thread: {@code MessageDigest.getInstance} looks the algorithm up through the
 * security providers and makes the digest by reflection, which cost every connection about a microsecond (a CPU
 * profile of resumed reconnects). A handshake computes it once: the verifier hands its fingerprint on with its
 * verdict. Any thread.
 */
public final class CertificateSha256 {
    /** The digest and the count of fingerprints this thread computed: one thread-local lookup for both. */
    private static final class Digest {
        private final MessageDigest sha256;
        private long computed;

        Digest() {
            try {
                this.sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JDK has no SHA-256", e);
            }
        }
    }

    private static final ThreadLocal<Digest> DIGEST = ThreadLocal.withInitial(Digest::new);

    private CertificateSha256() {
    }

    /** The SHA-256 of {@code der}; a new array. */
    public static byte[] of(byte[] der) {
        Digest digest = DIGEST.get();
        digest.computed++;
        // digest() resets the digest for the next use on this thread
        return digest.sha256.digest(der);
    }

    /** The SHA-256 of {@code certificate}'s DER encoding; a new array. */
    public static byte[] of(X509Certificate certificate) {
        try {
            return of(certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            // a verified certificate has an encoding
            throw new IllegalStateException("cannot fingerprint the client certificate", e);
        }
    }

    /**
     * Fingerprints computed on the calling thread so far: a test holds a handshake to one, without timing it (it is
     * the device certificate's DER hashed).
     */
    public static long computedOnThisThread() {
        return DIGEST.get().computed;
    }
}
