package io.mqttgw.core.tls;

import io.mqttgw.core.identity.RevocationPath;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Decides whether a device's certificate chain is trusted, at a given time. A refusal is one of the exceptions of
 * {@link CertificateRefusals}, so the TLS engine sends the matching alert and {@link TlsFailureReason} counts it.
 * Implementations are immutable apart from caches and are called concurrently by all event loops.
 */
public interface DeviceCertificateVerifier {
    /**
     * @param chain     the certificates the device sent, its own first
     * @param nowMillis the time to check validity and CRL freshness against (at the whole second it falls in:
     *                  {@link #wholeSecond})
     * @return whether the answer came from a cache of certificates verified before (no signature was checked: the
     *         handshake was cheap, which admission control gives back as CPU budget)
     */
    default boolean verify(X509Certificate[] chain, long nowMillis) throws CertificateException {
        return check(chain, nowMillis).fromCache();
    }

    /** As {@link #verify}, answering also what the chain's revocation depends on. */
    Verdict check(X509Certificate[] chain, long nowMillis) throws CertificateException;

    /**
     * The second {@code nowMillis} falls in, as epoch milliseconds: what validity is compared at. An X.509 time names
     * a whole second (RFC 5280 4.1.2.5: no fraction in DER), so a notAfter of 12:00:00Z still covers 12:00:00.999,
     * and a notBefore of 12:00:01Z is not reached at 12:00:00.999; compared in milliseconds, the first was refused.
     */
    static long wholeSecond(long nowMillis) {
        return Math.floorDiv(nowMillis, 1000L) * 1000L;
    }

    /**
     * An accepted chain.
     *
     * @param path      the signer and serial of each certificate of the path, for a later CRL to be checked against
     * @param fromCache whether no signature was checked ({@link #verify})
     * @param sha256    the device certificate's SHA-256 when the verifier computed it (its cache key), so the
     *                  connection's fingerprint is not computed a second time; null otherwise. Not to be modified.
     */
    record Verdict(RevocationPath path, boolean fromCache, byte[] sha256) {
        Verdict(RevocationPath path, boolean fromCache) {
            this(path, fromCache, null);
        }
    }

    /**
     * The lean verifier ({@code listener.tls.verifier: lean}).
     *
     * @param cas           the certificates of {@code listener.tls.ca-file}, each trusted
     * @param crls          the CRL index; {@link RevocationLists#NONE} without a CRL file
     * @param crlHard       whether an issuer without a current CRL blocks its devices
     * @param cacheCapacity verified certificates remembered; 0 turns the cache off
     */
    static DeviceCertificateVerifier lean(List<X509Certificate> cas, RevocationLists crls, boolean crlHard,
                                          int cacheCapacity) {
        return lean(cas, crls, crlHard, cacheCapacity, null);
    }

    /**
     * The lean verifier for reloaded TLS files: as {@link #lean(List, RevocationLists, boolean, int)}, keeping the
     * cache of verified certificates of {@code previous} (the verifier it replaces, or null) when the CAs are the same.
     */
    static DeviceCertificateVerifier lean(List<X509Certificate> cas, RevocationLists crls, boolean crlHard,
                                          int cacheCapacity, DeviceCertificateVerifier previous) {
        return LeanVerifier.reloaded(cas, new CertificatePolicy(crls, crlHard), cacheCapacity, previous);
    }

    /** The JDK PKIX verifier ({@code listener.tls.verifier: pkix}), with the same policy on top. */
    static DeviceCertificateVerifier pkix(List<X509Certificate> cas, RevocationLists crls, boolean crlHard)
            throws GeneralSecurityException {
        return new PkixVerifier(cas, new CertificatePolicy(crls, crlHard));
    }
}
