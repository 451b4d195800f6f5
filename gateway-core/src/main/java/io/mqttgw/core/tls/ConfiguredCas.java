package io.mqttgw.core.tls;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

/**
 * What a certificate of {@code listener.tls.ca-file} must be before the gateway lets it vouch for devices: a CA
 * (basicConstraints cA=true, critical as RFC 5280 requires), allowed to sign certificates (keyCertSign when it has a
 * key usage), of RFC 5280's shape, with no critical extension the gateway does not evaluate, with a key above
 * {@link KeyFloor}, and, when it carries name constraints, a root (they are applied through PKIX, which can only put
 * a self-signed CA in the path). The JDK's PKIX takes a trust anchor as it is and the lean verifier used to as well,
 * so a leaf put in the file by mistake, or a CA whose critical extension restricts it in a way nobody checks, vouched
 * for any device it signed. Each failure is a configuration error at startup and on reload (the working context
 * stays), naming the key, the file, the certificate and the fix. Stateless.
 */
final class ConfiguredCas {
    static final String BASIC_CONSTRAINTS = "2.5.29.19";
    static final String KEY_USAGE = "2.5.29.15";
    static final String SUBJECT_ALT_NAME = "2.5.29.17";
    static final String NAME_CONSTRAINTS = "2.5.29.30";
    /** Critical extensions of a configured CA that the verifiers evaluate (name constraints through PKIX). */
    static final Set<String> UNDERSTOOD_CRITICAL = Set.of(BASIC_CONSTRAINTS, KEY_USAGE, SUBJECT_ALT_NAME,
            NAME_CONSTRAINTS);
    private static final int KEY_CERT_SIGN = 5;

    private ConfiguredCas() {
    }

    /**
     * Refuses the first certificate of {@code cas} that may not vouch for devices.
     *
     * @param source the key and the file, e.g. {@code listener.tls.ca-file=/etc/mqttgw/ca.pem}
     * @throws IllegalStateException naming {@code source}, the certificate's subject, what is wrong and the fix
     */
    static void require(List<X509Certificate> cas, String source) {
        for (X509Certificate ca : cas) {
            String problem = problem(ca);
            if (problem != null) {
                throw new IllegalStateException(source + ": the certificate " + ca.getSubjectX500Principal().getName()
                        + " (serial " + ca.getSerialNumber().toString(16) + ") " + problem);
            }
        }
    }

    /** Null when {@code ca} may vouch for devices, else why not and the fix, as the rest of a sentence. */
    static String problem(X509Certificate ca) {
        String syntax = CertificateSyntax.problem(encoded(ca));
        if (syntax != null) {
            return "is malformed (" + syntax + "); put the CA certificate as its CA issued it in the file";
        }
        if (ca.getBasicConstraints() < 0) {
            return "is not a CA: it has no basicConstraints extension with cA=true, so it may not vouch for devices; "
                    + "put the CA that issued the device certificates in the file (openssl x509 -text shows "
                    + "\"CA:TRUE\" for it)";
        }
        Set<String> critical = ca.getCriticalExtensionOIDs();
        if (critical == null || !critical.contains(BASIC_CONSTRAINTS)) {
            return "marks its basicConstraints non-critical, which RFC 5280 4.2.1.9 forbids a CA (a verifier that "
                    + "ignores it would take the CA for an end entity, or the other way round); reissue the CA with "
                    + "a critical basicConstraints";
        }
        boolean[] usage = CertificatePolicy.keyUsage(ca);
        if (usage != null && (usage.length <= KEY_CERT_SIGN || !usage[KEY_CERT_SIGN])) {
            return "may not sign certificates: its key usage lacks keyCertSign; put the CA that issued the device "
                    + "certificates in the file, or reissue this one with keyCertSign";
        }
        for (String oid : critical) {
            if (!UNDERSTOOD_CRITICAL.contains(oid)) {
                return "has the critical extension " + oid + ", which the gateway does not evaluate, so it cannot "
                        + "honour the restriction it may carry (RFC 5280 4.2); reissue the CA without it, or with it "
                        + "non-critical";
            }
        }
        String weak = KeyFloor.problem(ca.getPublicKey());
        if (weak != null) {
            return "has " + weak + "; reissue the CA with a stronger key";
        }
        if (nameConstrained(ca) && !critical.contains(NAME_CONSTRAINTS)) {
            return "marks its name constraints non-critical, which RFC 5280 4.2.1.10 forbids (a verifier that does not "
                    + "evaluate them would ignore them); reissue the CA with critical name constraints";
        }
        if (CertificatePolicy.nonCriticalPolicyConstraints(ca)) {
            return "marks its policyConstraints non-critical, which RFC 5280 4.2.1.11 forbids; reissue the CA with a "
                    + "critical policyConstraints, or without one";
        }
        String constraints = StrictNameConstraints.problem(ca);
        if (constraints != null) {
            return "has name constraints that are malformed or cannot be evaluated (" + constraints + "), so the "
                    + "gateway cannot honour them; reissue the CA with constraints of RFC 5280 4.2.1.10's syntax";
        }
        if (nameConstrained(ca) && !selfSigned(ca)) {
            return NOT_A_ROOT;
        }
        return null;
    }

    private static final String NOT_A_ROOT = "carries name constraints but is not self-signed: the gateway applies "
            + "the name constraints of a configured root (and of every CA a device sends), not of a configured "
            + "intermediate; put its root CA in the file instead and let devices send this intermediate";

    /** Whether the CA carries a nameConstraints extension, critical or not: then PKIX decides its devices. */
    static boolean nameConstrained(X509Certificate ca) {
        return ca.getExtensionValue(NAME_CONSTRAINTS) != null;
    }

    /** Refuses a configured CA whose name constraints no verifier could apply ({@link #problem}). */
    static void requireConstraintsApplicable(X509Certificate ca) {
        if (!selfSigned(ca)) {
            throw new IllegalStateException("the certificate " + ca.getSubjectX500Principal().getName() + " "
                    + NOT_A_ROOT);
        }
    }

    private static boolean selfSigned(X509Certificate ca) {
        if (!ca.getSubjectX500Principal().equals(ca.getIssuerX500Principal())) {
            return false;
        }
        try {
            ca.verify(ca.getPublicKey());
            return true;
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    private static byte[] encoded(X509Certificate ca) {
        try {
            return ca.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            return null;
        }
    }
}
