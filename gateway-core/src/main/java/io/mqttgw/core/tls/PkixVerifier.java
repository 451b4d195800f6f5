package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.RevocationPath;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXCertPathValidatorResult;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * {@code listener.tls.verifier: pkix}: the JDK's generic PKIX validation on every handshake, revocation from the CRL
 * file only (nothing fetched over the network: a CRL distribution point or an OCSP responder must not stall
 * handshakes), soft-fail for an issuer without a current CRL. Its findings are rethrown as {@link CertificateRefusals}
 * so the alert is the same as with the lean verifier. A chain through a CA with name constraints is checked by
 * {@link StrictNameConstraints} first, whose answer wins where the JDK's matching is laxer than RFC 5280. Immutable;
 * a validator is made per call (the JDK's are not thread-safe).
 */
final class PkixVerifier implements DeviceCertificateVerifier {
    private final Set<TrustAnchor> anchors = new HashSet<>();
    /**
     * The configured CAs of each name that needs a signature check to pick the anchor: a name more than one CA has (a
     * rotation), or one a CA with name constraints has.
     */
    private final Map<X500Principal, List<X509Certificate>> checkedNames = new HashMap<>();
    /**
     * A key-only anchor for each configured CA with name constraints: the JDK's validator ignores the constraints of a
     * trust anchor made from a certificate, so such a CA (a root: {@link ConfiguredCas}) is put at the end of the
     * path itself, anchored by its own key, and the validator applies its constraints to everything below it.
     */
    private final Map<X509Certificate, TrustAnchor> constrained = new IdentityHashMap<>();
    private final Set<X509Certificate> anchorCertificates;
    /** Each configured CA's identity, by the certificate object its trust anchor hands back. */
    private final Map<X509Certificate, CertificateAuthority> authorities = new IdentityHashMap<>();
    private final CertificatePolicy policy;
    private final CertStore crlStore;

    PkixVerifier(List<X509Certificate> cas, CertificatePolicy policy) throws GeneralSecurityException {
        Map<X500Principal, List<X509Certificate>> byName = new HashMap<>();
        for (X509Certificate ca : cas) {
            authorities.put(ca, CertificateAuthority.of(ca));
            byName.computeIfAbsent(ca.getSubjectX500Principal(), k -> new ArrayList<>()).add(ca);
            if (ConfiguredCas.nameConstrained(ca)) {
                ConfiguredCas.requireConstraintsApplicable(ca);
                constrained.put(ca, new TrustAnchor(ca.getSubjectX500Principal(), ca.getPublicKey(), null));
            } else {
                anchors.add(new TrustAnchor(ca, null));
            }
        }
        byName.forEach((name, named) -> {
            if (named.size() > 1 || named.stream().anyMatch(constrained::containsKey)) {
                checkedNames.put(name, named);
            }
        });
        this.anchorCertificates = Set.copyOf(cas);
        this.policy = policy;
        this.crlStore = CertStore.getInstance("Collection",
                new CollectionCertStoreParameters(policy.crls().crls()));
    }

    @Override
    public Verdict check(X509Certificate[] chain, long now) throws CertificateException {
        long nowMillis = DeviceCertificateVerifier.wholeSecond(now);
        List<X509Certificate> path = new ArrayList<>(Arrays.asList(chain));
        X509Certificate anchor;
        // a device may send its CA too; the validator wants the path without the trust anchor
        while (path.size() > 1 && anchorCertificates.contains(path.get(path.size() - 1))) {
            path.remove(path.size() - 1);
        }
        // what the JDK's parse would let through (a dropped usage restriction, a lenient time) is refused first
        for (int i = 0; i < path.size(); i++) {
            CertificatePolicy.requireWellFormed(path.get(i), i == 0 ? "device certificate" : "sent certificate " + i);
            CertificatePolicy.requireStrongKey(path.get(i), i == 0 ? "device certificate" : "sent certificate " + i);
            if (i > 0) {
                CertificatePolicy.requireCriticalPolicyConstraints(path.get(i), "sent certificate " + i);
            }
        }
        X509Certificate top = path.get(path.size() - 1);
        List<X509Certificate> signers = signersOf(top);
        X509Certificate constrainedCa = null;
        Set<TrustAnchor> trusted = anchors;
        if (signers != null) {
            Set<TrustAnchor> plain = new HashSet<>();
            for (X509Certificate signer : signers) {
                if (constrained.containsKey(signer)) {
                    constrainedCa = constrainedCa == null ? signer : constrainedCa;
                } else {
                    plain.add(new TrustAnchor(signer, null));
                }
            }
            // a CA of the name without constraints vouches on its own; the constrained one only within them
            if (!plain.isEmpty()) {
                trusted = plain;
                constrainedCa = null;
            } else if (constrainedCa != null) {
                trusted = Set.of(constrained.get(constrainedCa));
            }
        }
        List<X509Certificate> validated = path;
        if (constrainedCa != null) {
            validated = new ArrayList<>(path);
            validated.add(constrainedCa);
        }
        // before the JDK's validator, whose matching is laxer and unbounded
        for (int i = 1; i < validated.size(); i++) {
            if (ConfiguredCas.nameConstrained(validated.get(i))) {
                StrictNameConstraints.require(validated);
                break;
            }
        }
        try {
            CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(validated);
            CertPathValidator validator = CertPathValidator.getInstance("PKIX");
            PKIXParameters parameters = new PKIXParameters(trusted);
            parameters.setDate(new Date(nowMillis));
            if (policy.crls().crls().isEmpty()) {
                parameters.setRevocationEnabled(false);
            } else {
                parameters.addCertStore(crlStore);
                PKIXRevocationChecker checker = (PKIXRevocationChecker) validator.getRevocationChecker();
                checker.setOptions(EnumSet.of(PKIXRevocationChecker.Option.PREFER_CRLS,
                        PKIXRevocationChecker.Option.NO_FALLBACK, PKIXRevocationChecker.Option.SOFT_FAIL));
                parameters.addCertPathChecker(checker);
                parameters.setRevocationEnabled(true);
            }
            PKIXCertPathValidatorResult result = (PKIXCertPathValidatorResult) validator.validate(certPath,
                    parameters);
            anchor = constrainedCa != null ? constrainedCa : result.getTrustAnchor().getTrustedCert();
            CertificatePolicy.requireConfiguredCaValid(anchor, nowMillis);
        } catch (CertPathValidatorException e) {
            throw translate(e);
        } catch (InvalidAlgorithmParameterException e) {
            throw CertificateRefusals.unknownCa("no trust anchor: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new CertificateException("PKIX validation failed: " + e.getMessage(), e);
        }
        for (X509Certificate c : path) {
            CertificatePolicy.requireStrongSignature(c);
        }
        CertificatePolicy.requireClientUsage(chain[0]);
        // the JDK's checker is soft-fail; hard CRL mode is this check, against the CA that signed each certificate:
        // the next one of the validated path, the trust anchor the validator chained the last one to
        CertificateAuthority[] issuers = new CertificateAuthority[path.size()];
        BigInteger[] serials = new BigInteger[path.size()];
        for (int i = 0; i < path.size(); i++) {
            X509Certificate signer = i + 1 < path.size() ? path.get(i + 1) : anchor;
            CertificateAuthority configured = authorities.get(signer);
            issuers[i] = configured != null ? configured : CertificateAuthority.of(signer);
            serials[i] = path.get(i).getSerialNumber();
        }
        RevocationPath revocation = new RevocationPath(issuers, serials);
        policy.requireNotRevoked(revocation, nowMillis);
        return new Verdict(revocation, false);
    }

    /**
     * The configured CAs of the top certificate's issuer name whose key verifies it, or null when the name needs no
     * such check (one CA, without name constraints: the validator's own choice is right). The JDK's validator tries
     * every anchor whose name matches and reports the failure of the last one tried: with the two CAs of a rotation,
     * a device revoked by its own CA was refused as a bad signature of the other, in the order of a hash set. One
     * signature check more, for those names only.
     */
    private List<X509Certificate> signersOf(X509Certificate top) {
        List<X509Certificate> named = checkedNames.get(top.getIssuerX500Principal());
        if (named == null) {
            return null;
        }
        List<X509Certificate> signers = new ArrayList<>(named.size());
        for (X509Certificate ca : named) {
            try {
                top.verify(ca.getPublicKey());
                signers.add(ca);
            } catch (GeneralSecurityException | RuntimeException e) {
                // another CA of the name
            }
        }
        return signers;
    }

    private static CertificateException translate(CertPathValidatorException e) {
        String message = e.getMessage();
        CertPathValidatorException.Reason reason = e.getReason();
        if (reason == PKIXReason.NO_TRUST_ANCHOR) {
            return CertificateRefusals.unknownCa(message);
        }
        if (reason == BasicReason.EXPIRED) {
            return CertificateRefusals.expired(message);
        }
        if (reason == BasicReason.NOT_YET_VALID) {
            return CertificateRefusals.notYetValid(message);
        }
        if (reason == BasicReason.REVOKED) {
            return CertificateRefusals.revoked(message);
        }
        if (reason == BasicReason.INVALID_SIGNATURE) {
            return CertificateRefusals.badSignature(message);
        }
        if (reason == BasicReason.ALGORITHM_CONSTRAINED) {
            return CertificateRefusals.weakAlgorithm(message);
        }
        if (reason == PKIXReason.UNRECOGNIZED_CRIT_EXT) {
            return CertificateRefusals.unrecognisedCriticalExtension(message);
        }
        return CertificateRefusals.wrongUsage(message);
    }
}
