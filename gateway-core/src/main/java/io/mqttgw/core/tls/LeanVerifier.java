package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.identity.RevocationPath;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * ({@link #reloaded}), whose CRLs every hit is checked against; a changed CA file starts a new one. When full, about
 * an eighth of it is dropped (arbitrary entries) by the thread that inserts; the cost is bounded by the capacity and
 * amortised over many inserts.
 * Thread-safe; called concurrently by all event loops.
 */
final class LeanVerifier implements DeviceCertificateVerifier {
    static final int MAX_SENT_INTERMEDIATES = 3;

    /** A configured CA: its name, its public key read once, and its identity for the CRL lookup. */
    private record Authority(X500Principal subject, IssuerKey key, CertificateAuthority identity, X509Certificate ca,
                             boolean constrained) {
    }

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

    /** SHA-256 of a certificate's DER, with the hash code taken from its first bytes. */
    private static final class Fingerprint {
        private final byte[] digest;
        private final int hash;

        Fingerprint(byte[] digest) {
            this.digest = digest;
            this.hash = (digest[0] & 0xff) << 24 | (digest[1] & 0xff) << 16 | (digest[2] & 0xff) << 8
                    | digest[3] & 0xff;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fingerprint f && Arrays.equals(digest, f.digest);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** The configured CAs, to tell whether a reloaded verifier may take this one's cache. */
    private final Set<X509Certificate> cas;
    private final Map<X500Principal, List<Authority>> authorities;
    /** The same authorities by the DER of their subject name, for certificates read without the JDK's parse. */
    private final Map<ByteBuffer, List<Authority>> authoritiesByDer;
    private final CertificatePolicy policy;
    private final int cacheCapacity;
    private final boolean readsDer;
    private final ConcurrentHashMap<Fingerprint, Verified> cache;
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
        this(cas, policy, cacheCapacity, readsDer, new ConcurrentHashMap<>());
    }

    /**
     * The verifier of reloaded files: it shares {@code previous}'s cache of verified certificates when that is a
     * lean verifier of the same CAs and capacity (so a CRL update does not make the next reconnect storm pay a
     * signature per device), and starts an empty one otherwise. Entries the previous verifier adds later, for
     * handshakes of its context still in flight, are as valid for this one.
     */
    static LeanVerifier reloaded(List<X509Certificate> cas, CertificatePolicy policy, int cacheCapacity,
                                 DeviceCertificateVerifier previous) {
        boolean same = previous instanceof LeanVerifier lean && lean.cacheCapacity == cacheCapacity
                && lean.readsDer && lean.cas.equals(Set.copyOf(cas));
        return new LeanVerifier(cas, policy, cacheCapacity, true,
                same ? ((LeanVerifier) previous).cache : new ConcurrentHashMap<>());
    }

    private LeanVerifier(List<X509Certificate> cas, CertificatePolicy policy, int cacheCapacity, boolean readsDer,
                         ConcurrentHashMap<Fingerprint, Verified> cache) {
        this.cas = Set.copyOf(cas);
        this.cache = cache;
        Map<X500Principal, List<Authority>> byName = new HashMap<>();
        Map<ByteBuffer, List<Authority>> byDer = new HashMap<>();
        for (X509Certificate ca : cas) {
            CertificateAuthority identity = CertificateAuthority.of(ca);
            RevocationLists.IssuerCrl crl = policy.crls().of(identity);
            // the lists' own instance, so that the lookup on each handshake ends at the identity check of equals
            Authority authority = new Authority(ca.getSubjectX500Principal(), IssuerKey.configured(ca.getPublicKey()),
                    crl != null ? crl.issuer() : identity, ca, ConfiguredCas.nameConstrained(ca));
            byName.computeIfAbsent(authority.subject(), k -> new ArrayList<>()).add(authority);
            byDer.computeIfAbsent(ByteBuffer.wrap(authority.subject().getEncoded()), k -> new ArrayList<>())
                    .add(authority);
        }
        byName.replaceAll((k, v) -> List.copyOf(v));
        byDer.replaceAll((k, v) -> List.copyOf(v));
        this.authorities = Map.copyOf(byName);
        this.authoritiesByDer = Map.copyOf(byDer);
        this.policy = policy;
        this.cacheCapacity = cacheCapacity;
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
        Fingerprint fingerprint = cacheCapacity > 0 ? new Fingerprint(sha256) : null;
        Verified verified = fingerprint == null ? null : cache.get(fingerprint);
        boolean known = verified != null;
        if (verified == null) {
            verified = verifiedFromDer(der, nowMillis);
            if (verified == null) {
                verified = verifyPath(chain, nowMillis);
            }
            if (verified == null) {
                // through a name-constrained CA: never remembered, so its constraints are applied on every handshake
                return new Verdict(constrainedChains.check(chain, nowMillis).path(), false, sha256);
            }
            if (fingerprint != null) {
                remember(fingerprint, verified);
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
     * {@link #verifyPath} (signature, dates, key usage, extended key usage, ECDSA only). It only ever accepts: on
     * anything unexpected or failing it answers null and {@link #verifyPath} decides (and names the refusal), so a
     * certificate is accepted here only if the full path would accept it too: {@code VerifierDifferentialTest} asks
     * this path alone (hence not private) and checks that on generated certificates.
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
        List<Authority> configured = authoritiesByDer.get(
                ByteBuffer.wrap(der, certificate.issuerOffset(), certificate.issuerLength()));
        if (configured == null) {
            return null;
        }
        for (Authority authority : configured) {
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

    /** The verified path, or null when it goes through a CA with name constraints: then PKIX decides. */
    private Verified verifyPath(X509Certificate[] chain, long nowMillis) throws CertificateException {
        List<CertificateAuthority> issuers = new ArrayList<>(2);
        List<BigInteger> serials = new ArrayList<>(2);
        long notBefore = Long.MIN_VALUE;
        long notAfter = Long.MAX_VALUE;
        X509Certificate current = chain[0];
        CertificatePolicy.requireWellFormed(current, "device certificate");
        CertificatePolicy.requireClientUsage(current);
        // the CAs below the one being looked at, self-issued ones not counted (RFC 5280 6.1.4 (l)): its pathLen bound
        int intermediatesBelow = 0;
        for (int depth = 0; ; depth++) {
            if (depth > 0 && !current.getSubjectX500Principal().equals(current.getIssuerX500Principal())) {
                intermediatesBelow++;
            }
            CertificatePolicy.requireStrongKey(current, depth == 0 ? "device certificate" : "sent CA");
            CertificatePolicy.requireStrongSignature(current);
            CertificatePolicy.requireUnderstoodCriticalExtensions(current);
            notBefore = Math.max(notBefore, current.getNotBefore().getTime());
            notAfter = Math.min(notAfter, current.getNotAfter().getTime());
            X500Principal issuer = current.getIssuerX500Principal();
            List<Authority> configured = authorities.get(issuer);
            serials.add(current.getSerialNumber());
            Authority signer = configured == null ? null : signedByOneOf(current, configured);
            if (signer != null) {
                if (signer.constrained()) {
                    return null;
                }
                // the configured CA's shared identity, not the name parsed from this certificate: that one drags its
                // DER, X500Name, RDNs and OIDs along, ~0.9 KB per remembered device
                CertificatePolicy.requireConfiguredCaValid(signer.ca(), nowMillis);
                // and for the hits to come: a remembered device is refused once its CA has expired
                notBefore = Math.max(notBefore, signer.ca().getNotBefore().getTime());
                notAfter = Math.min(notAfter, signer.ca().getNotAfter().getTime());
                issuers.add(signer.identity());
                break;
            }
            X509Certificate sent = depth < MAX_SENT_INTERMEDIATES ? sentIssuer(chain, current, issuer) : null;
            if (sent == null) {
                if (configured != null) {
                    throw CertificateRefusals.badSignature("the signature of "
                            + current.getSubjectX500Principal().getName() + " does not verify with the key of the "
                            + "configured CA " + issuer.getName());
                }
                if (depth < MAX_SENT_INTERMEDIATES && namedIn(chain, current, issuer)) {
                    throw CertificateRefusals.badSignature("the signature of "
                            + current.getSubjectX500Principal().getName() + " does not verify with the key of "
                            + issuer.getName());
                }
                throw CertificateRefusals.unknownCa("no CA of listener.tls.ca-file issued " + (depth == 0
                        ? "the device certificate" : "the intermediate " + current.getSubjectX500Principal().getName())
                        + " (issuer " + issuer.getName() + ")");
            }
            CertificatePolicy.requireCriticalPolicyConstraints(sent, "sent certificate");
            if (ConfiguredCas.nameConstrained(sent)) {
                return null;
            }
            issuers.add(CertificateAuthority.of(sent));
            if (sent.getBasicConstraints() < intermediatesBelow) {
                throw CertificateRefusals.wrongUsage(issuer.getName() + " is not a CA for a path this long");
            }
            boolean[] usage = CertificatePolicy.keyUsage(sent);
            if (usage != null && (usage.length < 6 || !usage[5])) {
                throw CertificateRefusals.wrongUsage(issuer.getName() + " may not sign certificates (keyCertSign)");
            }
            current = sent;
        }
        if (nowMillis > notAfter) {
            throw CertificateRefusals.expired("certificate expired at " + java.time.Instant.ofEpochMilli(notAfter));
        }
        if (nowMillis < notBefore) {
            throw CertificateRefusals.notYetValid("certificate not valid before "
                    + java.time.Instant.ofEpochMilli(notBefore));
        }
        return new Verified(notBefore, notAfter, issuers.toArray(new CertificateAuthority[0]),
                serials.toArray(new BigInteger[0]));
    }

    /**
     * The CA among the certificates the device sent that issued {@code child}, in any order (TLS 1.3 allows it): the
     * first of its issuer's name whose key verifies its signature, so a second certificate of that name (a re-keyed
     * or cross-signed CA) is tried too. A sent certificate that is not well-formed is never a candidate, so an extra
     * one the path does not need changes nothing, just as on the DER path, which reads the device certificate alone.
     */
    private static X509Certificate sentIssuer(X509Certificate[] chain, X509Certificate child, X500Principal issuer) {
        for (X509Certificate candidate : chain) {
            if (candidate != child && wellFormed(candidate) && candidate.getSubjectX500Principal().equals(issuer)
                    && candidate.getBasicConstraints() >= 0
                    && IssuerKey.sent(candidate.getPublicKey()).verifies(child)) {
                return candidate;
            }
        }
        return null;
    }

    /** Whether the device sent a CA of {@code issuer}'s name (whose key did not verify {@code child}). */
    private static boolean namedIn(X509Certificate[] chain, X509Certificate child, X500Principal issuer) {
        for (X509Certificate candidate : chain) {
            if (candidate != child && wellFormed(candidate) && candidate.getSubjectX500Principal().equals(issuer)
                    && candidate.getBasicConstraints() >= 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean wellFormed(X509Certificate candidate) {
        try {
            CertificatePolicy.requireWellFormed(candidate, "sent certificate");
            return true;
        } catch (CertificateException e) {
            return false;
        }
    }

    /**
     * The configured CA (of those with the certificate's issuer name) whose key verifies its signature, or null: then
     * a CA of that name the device sent may have issued it (a cross-signed or re-keyed CA).
     */
    private static Authority signedByOneOf(X509Certificate certificate, List<Authority> candidates) {
        for (Authority authority : candidates) {
            if (authority.key().verifies(certificate)) {
                return authority;
            }
        }
        return null;
    }

    private void remember(Fingerprint fingerprint, Verified verified) {
        if (cache.size() >= cacheCapacity) {
            int drop = Math.max(1, cacheCapacity / 8);
            Iterator<Fingerprint> it = cache.keySet().iterator();
            while (drop-- > 0 && it.hasNext()) {
                it.next();
                it.remove();
            }
        }
        cache.put(fingerprint, verified);
    }
}
