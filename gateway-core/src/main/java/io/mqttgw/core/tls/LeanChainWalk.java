package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import java.math.BigInteger;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.security.auth.x500.X500Principal;

/**
 * The lean verifier's path through parsed certificates: from the device certificate up through at most
 * {@value LeanVerifier#MAX_SENT_INTERMEDIATES} CA certificates the device sent, in any order, to a configured CA,
 * with the checks of each certificate on the way (well-formed, key and signature strength, critical extensions,
 * dates, basic constraints and keyCertSign of sent CAs, clientAuth usage of the device certificate); every refusal
 * is named here. Immutable; called concurrently by all event loops.
 */
final class LeanChainWalk {
    /** A configured CA: its name, its public key read once, and its identity for the CRL lookup. */
    record Authority(X500Principal subject, IssuerKey key, CertificateAuthority identity, X509Certificate ca,
                     boolean constrained) {
    }

    private final Map<X500Principal, List<Authority>> authorities;

    /** @param authorities the configured CAs by their subject name */
    LeanChainWalk(Map<X500Principal, List<Authority>> authorities) {
        this.authorities = authorities;
    }

    /** The verified path, or null when it goes through a CA with name constraints: then PKIX decides. */
    LeanVerifier.Verified verifyPath(X509Certificate[] chain, long nowMillis) throws CertificateException {
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
            X509Certificate sent = depth < LeanVerifier.MAX_SENT_INTERMEDIATES ? sentIssuer(chain, current, issuer)
                    : null;
            if (sent == null) {
                if (configured != null) {
                    throw CertificateRefusals.badSignature("the signature of "
                            + current.getSubjectX500Principal().getName() + " does not verify with the key of the "
                            + "configured CA " + issuer.getName());
                }
                if (depth < LeanVerifier.MAX_SENT_INTERMEDIATES && namedIn(chain, current, issuer)) {
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
        return new LeanVerifier.Verified(notBefore, notAfter, issuers.toArray(new CertificateAuthority[0]),
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
}
