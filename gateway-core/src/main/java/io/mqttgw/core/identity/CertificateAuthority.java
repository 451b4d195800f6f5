package io.mqttgw.core.identity;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import javax.security.auth.x500.X500Principal;

/**
 * A certificate issuer as revocation sees it: its subject name and its public key. Two CAs of one name (a rotation)
 * are two authorities, each with its own CRL; two certificates of one CA (re-issued with the same key) are one. Equal
 * by value, with the hash computed once, so a lookup with an authority of a verifier built before a CRL reload finds
 * the reloaded list without allocating. Immutable; shared by the verifier, its cache, the CRL index and every
 * connection whose certificate it issued.
 */
public final class CertificateAuthority {
    private final X500Principal subject;
    private final byte[] subjectDer;
    private final byte[] publicKey;
    private final int hash;

    private CertificateAuthority(X500Principal subject, PublicKey key) {
        this.subject = subject;
        this.subjectDer = subject.getEncoded();
        this.publicKey = key.getEncoded();
        this.hash = 31 * Arrays.hashCode(subjectDer) + Arrays.hashCode(publicKey);
    }

    /** The authority of a CA certificate (a configured one, or an intermediate the device sent). */
    public static CertificateAuthority of(X509Certificate ca) {
        return new CertificateAuthority(ca.getSubjectX500Principal(), ca.getPublicKey());
    }

    public X500Principal subject() {
        return subject;
    }

    /** The first 8 bytes of the SHA-256 of the key, in hex: tells apart the CAs of one name in logs and metrics. */
    public String keyId() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(publicKey);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof CertificateAuthority a && hash == a.hash
                && Arrays.equals(publicKey, a.publicKey) && Arrays.equals(subjectDer, a.subjectDer);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** The name and the key id, as logs and refusals show an authority. */
    @Override
    public String toString() {
        return subject.getName() + " (key " + keyId() + ")";
    }
}
