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
 * so the alert is the same as with the lean verifier. Immutable; a validator is made per call (the JDK's are not
 * thread-safe).
 */
final class PkixVerifier implements DeviceCertificateVerifier {
    private final Set<TrustAnchor> anchors = new HashSet<>();
    /** The anchors of each CA name that more than one configured CA has (a rotation). */
    private final Map<X500Principal, List<TrustAnchor>> sharedNames = new HashMap<>();
    private final Set<X509Certificate> anchorCertificates;
    /** Each configured CA's identity, by the certificate object its trust anchor hands back. */
    private final Map<X509Certificate, CertificateAuthority> authorities = new IdentityHashMap<>();
    private final CertificatePolicy policy;
    private final CertStore crlStore;

    PkixVerifier(List<X509Certificate> cas, CertificatePolicy policy) throws GeneralSecurityException {
        for (X509Certificate ca : cas) {
            TrustAnchor anchor = new TrustAnchor(ca, null);
            anchors.add(anchor);
            authorities.put(ca, CertificateAuthority.of(ca));
            sharedNames.computeIfAbsent(ca.getSubjectX500Principal(), k -> new ArrayList<>()).add(anchor);
        }
        sharedNames.values().removeIf(named -> named.size() < 2);
        this.anchorCertificates = Set.copyOf(cas);
        this.policy = policy;
        this.crlStore = CertStore.getInstance("Collection",
                new CollectionCertStoreParameters(policy.crls().crls()));
    }

    @Override
    public Verdict check(X509Certificate[] chain, long nowMillis) throws CertificateException {
        List<X509Certificate> path = new ArrayList<>(Arrays.asList(chain));
        X509Certificate anchor;
        // a device may send its CA too; the validator wants the path without the trust anchor
        while (path.size() > 1 && anchorCertificates.contains(path.get(path.size() - 1))) {
            path.remove(path.size() - 1);
        }
        // what the JDK's parse would let through (a dropped usage restriction, a lenient time) is refused first
        for (int i = 0; i < path.size(); i++) {
            CertificatePolicy.requireWellFormed(path.get(i), i == 0 ? "device certificate" : "sent certificate " + i);
        }
        try {
            CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
            CertPathValidator validator = CertPathValidator.getInstance("PKIX");
            PKIXParameters parameters = new PKIXParameters(anchorsFor(path.get(path.size() - 1)));
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
            anchor = result.getTrustAnchor().getTrustedCert();
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
     * The anchors to validate against. The JDK's validator tries every anchor whose name matches and reports the
     * failure of the last one tried: with the two CAs of a rotation, a device revoked by its own CA was refused as
     * a bad signature of the other, in the order of a hash set. Where the name is shared, only the CAs whose key
     * verifies the top certificate are offered (one signature check more, in a rotation only).
     */
    private Set<TrustAnchor> anchorsFor(X509Certificate top) {
        List<TrustAnchor> named = sharedNames.get(top.getIssuerX500Principal());
        if (named == null) {
            return anchors;
        }
        Set<TrustAnchor> signers = new HashSet<>();
        for (TrustAnchor anchor : named) {
            try {
                top.verify(anchor.getTrustedCert().getPublicKey());
                signers.add(anchor);
            } catch (GeneralSecurityException e) {
                // the other CA of the name
            }
        }
        return signers.isEmpty() ? anchors : signers;
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
