package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.identity.RevocationPath;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * {@code listener.tls.verifier: lean}: verifies a device chain against the configured CAs without the JDK's generic
 * PKIX machinery. The device certificate must be issued by a CA of {@code listener.tls.ca-file} (any certificate
 * there is trusted, root or intermediate) or through at most {@value #MAX_SENT_INTERMEDIATES} CA certificates the
 * device sent; each signature is checked with the issuer's public key (cached for configured CAs), validity dates on
 * every certificate of the path, basic constraints on sent intermediates, key usage / extended key usage (clientAuth)
 * on the device certificate, no SHA-1, no key under {@link KeyFloor}, and no critical extension other than those
 * ({@link CertificatePolicy#UNDERSTOOD_CRITICAL}; a critical policy is refused, not ignored). A chain through a CA
 * with name constraints (configured or sent) is handed to {@link PkixVerifier}, which applies them, and is never
 * remembered.
 * Revocation is a lookup of (signing CA, serial) in the CRL index, the CA being the configured one whose key verified
 * the signature (its name alone would confuse the two CAs of a rotation). The common case, a
 * device certificate issued directly by a configured P-256 CA, is read from its DER without the JDK's parse
 * ({@link #verifiedFromDer}); every other certificate, and every refusal, goes through the parsed path.
 *
 * <p>A storm of known devices reconnecting costs no signature work: verified device certificates are remembered by
 * the SHA-256 of their DER (up to {@code cacheCapacity} entries) with their validity and the (signing CA, serial)
 * pairs of their path ({@link RevocationPath}). A hit checks the dates and the CRLs again (a device revoked after it
 * was cached is still refused) and needs no parsing: Netty's OpenSSL engine hands the DER over in a lazily parsed
 * certificate. What the cache says (a
 * signature checked with a configured CA's key, the path's dates, serials and issuers) depends on the CA file only:
 * a reload that keeps the same CAs (a new CRL, server certificate or key) hands the cache on to the new verifier
 * ({@link #reloaded}), whose CRLs every hit is checked against; a changed CA file starts a new one
 * ({@link VerifiedCache}). The path through parsed certificates is {@link LeanChainWalk}'s.
 * Thread-safe; called concurrently by all event loops.
 */
final class LeanVerifier implements DeviceCertificateVerifier {
    static final int MAX_SENT_INTERMEDIATES = 3;

    /**
     * What a cache hit must still check: the validity of the path and the (signing CA, serial) of each link. It is
     * the revocation path a connection keeps, so a known device's connection costs no object of its own.
     */
    static final class Verified extends RevocationPath {
        private final long notBefore;
        private final long notAfter;

        Verified(long notBefore, long notAfter, CertificateAuthority[] issuers, BigInteger[] serials) {
            super(issuers, serials);
            this.notBefore = notBefore;
            this.notAfter = notAfter;
        }
    }

    /** The configured CAs, to tell whether a reloaded verifier may take this one's cache. */
    private final Set<X509Certificate> cas;
    private final LeanChainWalk parsedPath;
    /** The same authorities by the DER of their subject name, for certificates read without the JDK's parse. */
    private final Map<ByteBuffer, List<LeanChainWalk.Authority>> authoritiesByDer;
    private final CertificatePolicy policy;
    private final boolean readsDer;
    private final VerifiedCache cache;
    /**
     * Decides every chain through a CA with name constraints (configured or sent): the lean walk does not evaluate
     * them, the JDK's validator does, and a constrained CA is rare enough that its devices may pay for it.
     */
    private final PkixVerifier constrainedChains;

    LeanVerifier(List<X509Certificate> cas, CertificatePolicy policy, int cacheCapacity) {
        this(cas, policy, cacheCapacity, true);
    }

    /** @param readsDer whether the common case is read from the DER ({@link #verifiedFromDer}); tests turn it off */
    LeanVerifier(List<X509Certificate> cas, CertificatePolicy policy, int cacheCapacity, boolean readsDer) {
        this(cas, policy, readsDer, new VerifiedCache(cacheCapacity));
    }

    /**
     * The verifier of reloaded files: it shares {@code previous}'s cache of verified certificates when that is a
     * lean verifier of the same CAs and capacity (so a CRL update does not make the next reconnect storm pay a
     * signature per device), and starts an empty one otherwise. Entries the previous verifier adds later, for
     * handshakes of its context still in flight, are as valid for this one.
     */
    static LeanVerifier reloaded(List<X509Certificate> cas, CertificatePolicy policy, int cacheCapacity,
                                 DeviceCertificateVerifier previous) {
        boolean same = previous instanceof LeanVerifier lean && lean.cache.capacity() == cacheCapacity
                && lean.readsDer && lean.cas.equals(Set.copyOf(cas));
        return new LeanVerifier(cas, policy, true,
                same ? ((LeanVerifier) previous).cache : new VerifiedCache(cacheCapacity));
    }

    private LeanVerifier(List<X509Certificate> cas, CertificatePolicy policy, boolean readsDer, VerifiedCache cache) {
        this.cas = Set.copyOf(cas);
        this.cache = cache;
        Map<X500Principal, List<LeanChainWalk.Authority>> byName = new HashMap<>();
        Map<ByteBuffer, List<LeanChainWalk.Authority>> byDer = new HashMap<>();
        for (X509Certificate ca : cas) {
            CertificateAuthority identity = CertificateAuthority.of(ca);
            RevocationLists.IssuerCrl crl = policy.crls().of(identity);
            // the lists' own instance, so that the lookup on each handshake ends at the identity check of equals
            LeanChainWalk.Authority authority = new LeanChainWalk.Authority(ca.getSubjectX500Principal(),
                    IssuerKey.configured(ca.getPublicKey()), crl != null ? crl.issuer() : identity, ca,
                    ConfiguredCas.nameConstrained(ca));
            byName.computeIfAbsent(authority.subject(), k -> new ArrayList<>()).add(authority);
            byDer.computeIfAbsent(ByteBuffer.wrap(authority.subject().getEncoded()), k -> new ArrayList<>())
                    .add(authority);
        }
        byName.replaceAll((k, v) -> List.copyOf(v));
        byDer.replaceAll((k, v) -> List.copyOf(v));
        this.parsedPath = new LeanChainWalk(Map.copyOf(byName));
        this.authoritiesByDer = Map.copyOf(byDer);
        this.policy = policy;
        this.readsDer = readsDer;
        try {
            this.constrainedChains = new PkixVerifier(cas, policy);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up PKIX for name-constrained CAs: " + e.getMessage(), e);
        }
    }

    @Override
    public Verdict check(X509Certificate[] chain, long now) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("no client certificate");
        }
        long nowMillis = DeviceCertificateVerifier.wholeSecond(now);
        byte[] der = chain[0].getEncoded();
        // computed even without a cache: the connection keeps it as its fingerprint (handed on with the verdict)
        byte[] sha256 = CertificateSha256.of(der);
        VerifiedCache.Fingerprint fingerprint = cache.capacity() > 0 ? new VerifiedCache.Fingerprint(sha256) : null;
        Verified verified = fingerprint == null ? null : cache.get(fingerprint);
        boolean known = verified != null;
        if (verified == null) {
            verified = verifiedFromDer(der, nowMillis);
            if (verified == null) {
                verified = parsedPath.verifyPath(chain, nowMillis);
            }
            if (verified == null) {
                // through a name-constrained CA: never remembered, so its constraints are applied on every handshake
                return new Verdict(constrainedChains.check(chain, nowMillis).path(), false, sha256);
            }
            if (fingerprint != null) {
                cache.remember(fingerprint, verified);
            }
        } else if (nowMillis > verified.notAfter) {
            throw CertificateRefusals.expired("certificate expired at " + java.time.Instant.ofEpochMilli(
                    verified.notAfter));
        } else if (nowMillis < verified.notBefore) {
            throw CertificateRefusals.notYetValid("certificate not valid before " + java.time.Instant.ofEpochMilli(
                    verified.notBefore));
        }
        // a hit too: the CRLs may have changed since, and the path names the CA each was signed by
        policy.requireNotRevoked(verified, nowMillis);
        return new Verdict(verified, known, sha256);
    }

    /** Entries in the cache of verified certificates. */
    int cached() {
        return cache.size();
    }

    /**
     * The common case without the JDK's parse: a device certificate issued by a configured CA with a P-256 key, read
     * from its DER ({@link CertificateDer#signed}), its issuer found by the bytes of its name, the same checks as
     * {@link LeanChainWalk#verifyPath} (signature, dates, key usage, extended key usage, ECDSA only). It only ever
     * accepts: on anything unexpected or failing it answers null and {@link LeanChainWalk#verifyPath} decides (and
     * names the refusal), so a certificate is accepted here only if the full path would accept it too:
     * {@code VerifierDifferentialTest} asks this path alone (hence not private) and checks that on generated
     * certificates.
     */
    Verified verifiedFromDer(byte[] der, long nowMillis) {
        if (!readsDer) {
            return null;
        }
        CertificateDer.Signed certificate = CertificateDer.signed(der);
        if (certificate == null || !certificate.digitalSignature() || !certificate.clientAuth()
                || nowMillis > certificate.notAfterMillis() || nowMillis < certificate.notBeforeMillis()) {
            return null;
        }
        List<LeanChainWalk.Authority> configured = authoritiesByDer.get(
                ByteBuffer.wrap(der, certificate.issuerOffset(), certificate.issuerLength()));
        if (configured == null) {
            return null;
        }
        for (LeanChainWalk.Authority authority : configured) {
            if (authority.constrained()) {
                return null;
            }
            if (authority.key().verifies(certificate)) {
                // the configured CA's own validity bounds the path: outside it, the parsed path decides and names it
                long notBefore = Math.max(certificate.notBeforeMillis(), authority.ca().getNotBefore().getTime());
                long notAfter = Math.min(certificate.notAfterMillis(), authority.ca().getNotAfter().getTime());
                if (nowMillis > notAfter || nowMillis < notBefore) {
                    return null;
                }
                return new Verified(notBefore, notAfter, new CertificateAuthority[] {authority.identity()},
                        new BigInteger[] {certificate.serial()});
            }
        }
        return null;
    }
}
