package io.mqttgw.core.connection;

import io.mqttgw.core.identity.RevocationPath;
import java.nio.ByteBuffer;

/**
 * What the TLS handshake proved with the device's client certificate, kept for the connection's life instead of the
 * parsed certificate: the identity read from it, its notAfter, its SHA-256 fingerprint and its revocation path.
 * Immutable; made on the event loop before the session is registered and never changed, so a thread that found the
 * connection in the registry (the revocation sweep, the operator API) reads it safely.
 */
final class ClientCertificate {
    private final String identity;
    private final long notAfterMillis;
    /*
     * The fingerprint as four longs rather than an array of its own: the array's header would cost every mTLS
     * connection 16 bytes more than the fields this object replaced.
     */
    private final long sha0;
    private final long sha1;
    private final long sha2;
    private final long sha3;
    /** Shared with the verifier's cache (one reference per connection); null without a verifier. */
    private final RevocationPath revocation;

    ClientCertificate(String identity, long notAfterMillis, byte[] sha256, RevocationPath revocation) {
        if (sha256.length != 32) {
            throw new IllegalArgumentException("a SHA-256 fingerprint has 32 bytes, not " + sha256.length);
        }
        ByteBuffer in = ByteBuffer.wrap(sha256);
        this.identity = identity;
        this.notAfterMillis = notAfterMillis;
        this.sha0 = in.getLong();
        this.sha1 = in.getLong();
        this.sha2 = in.getLong();
        this.sha3 = in.getLong();
        this.revocation = revocation;
    }

    String identity() {
        return identity;
    }

    long notAfterMillis() {
        return notAfterMillis;
    }

    /** A new array each call. */
    byte[] sha256() {
        return ByteBuffer.allocate(32).putLong(sha0).putLong(sha1).putLong(sha2).putLong(sha3).array();
    }

    RevocationPath revocation() {
        return revocation;
    }
}
