package io.mqttgw.core.tls;

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
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code listener.tls.verifier: pkix}: the JDK's generic PKIX validation on every handshake, revocation from the CRL
 * file only (nothing fetched over the network: a CRL distribution point or an OCSP responder must not stall
 * handshakes), soft-fail for an issuer without a current CRL. Its findings are rethrown as {@link CertificateRefusals}
 * so the alert is the same as with the lean verifier. Immutable; a validator is made per call (the JDK's are not
 * thread-safe).
 */
final class PkixVerifier implements DeviceCertificateVerifier {
    private final Set<TrustAnchor> anchors = new HashSet<>();
    private final Set<X509Certificate> anchorCertificates;
    private final CertificatePolicy policy;
    private final CertStore crlStore;

    PkixVerifier(List<X509Certificate> cas, CertificatePolicy policy) throws GeneralSecurityException {
        for (X509Certificate ca : cas) {
            anchors.add(new TrustAnchor(ca, null));
        }
        this.anchorCertificates = Set.copyOf(cas);
        this.policy = policy;
        this.crlStore = CertStore.getInstance("Collection",
                new CollectionCertStoreParameters(policy.crls().crls()));
    }

    @Override
    public boolean verify(X509Certificate[] chain, long nowMillis) throws CertificateException {
        List<X509Certificate> path = new ArrayList<>(Arrays.asList(chain));
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
            PKIXParameters parameters = new PKIXParameters(anchors);
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
            validator.validate(certPath, parameters);
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
        // the JDK's checker is soft-fail; hard CRL mode is this check
        for (X509Certificate c : path) {
            policy.requireNotRevoked(c.getIssuerX500Principal(), c.getSerialNumber(), nowMillis);
        }
        return false;
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
