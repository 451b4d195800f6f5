package io.mqttgw.core.identity;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 of a certificate's DER encoding, the fingerprint the verifier's cache, the connection's context and the
 * operator API use. One digest per thread: {@code MessageDigest.getInstance} looks the algorithm up through the
 * security providers and makes the digest by reflection, which cost every connection about a microsecond twice over
 * (the verifier and the handshake handler each fingerprint the device certificate; a CPU profile of resumed
 * reconnects). Any thread.
 */
public final class CertificateSha256 {
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    });

    private CertificateSha256() {
    }

    /** The SHA-256 of {@code der}; a new array. */
    public static byte[] of(byte[] der) {
        // digest() resets the digest for the next use on this thread
        return DIGEST.get().digest(der);
    }
}
