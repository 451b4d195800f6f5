package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.RevocationPath;
import java.math.BigInteger;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules both verifiers apply on top of chaining to a configured CA: no SHA-1 signatures, key usage and extended
 * key usage that allow TLS client authentication, no CA powers claimed by a device certificate, CRL lookup by serial
 * and, in hard CRL mode, a current CRL for every issuer. Immutable; called concurrently by all event loops.
 */
final class CertificatePolicy {
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String ANY_USAGE = "2.5.29.37.0";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String NAME_CONSTRAINTS = "2.5.29.30";
    private static final String POLICY_CONSTRAINTS = "2.5.29.36";
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_CERT_SIGN = 5;
    private static final int CRL_SIGN = 6;
    /**
     * The critical extensions the lean verifier evaluates: key usage, extended key usage, basic constraints, and the
     * subject alternative name (critical when the subject is empty; nothing in it restricts the certificate).
     */
    static final Set<String> UNDERSTOOD_CRITICAL = Set.of(KEY_USAGE, EXTENDED_KEY_USAGE, "2.5.29.19",
            SUBJECT_ALT_NAME);

    private final RevocationLists crls;
    private final boolean crlHard;

    CertificatePolicy(RevocationLists crls, boolean crlHard) {
        this.crls = crls;
        this.crlHard = crlHard;
    }

    RevocationLists crls() {
        return crls;
    }

    /**
     * Refuses a certificate signed with SHA-1. BoringSSL has no setting for the signature algorithms a server accepts
     * in client certificates, so this check is where SHA-1 chains are refused, for both engines.
     */
    /**
     * A certificate of {@code listener.tls.ca-file} vouches for devices only while it is itself valid: the JDK's PKIX
     * takes a trust anchor as it is, and a CA file that kept an expired CA would otherwise keep its devices in.
     */
    static void requireConfiguredCaValid(X509Certificate ca, long nowMillis) throws CertificateException {
        if (nowMillis > ca.getNotAfter().getTime()) {
            throw CertificateRefusals.expired("the configured CA " + ca.getSubjectX500Principal().getName()
                    + " expired at " + ca.getNotAfter().toInstant());
        }
        if (nowMillis < ca.getNotBefore().getTime()) {
            throw CertificateRefusals.notYetValid("the configured CA " + ca.getSubjectX500Principal().getName()
                    + " is not valid before " + ca.getNotBefore().toInstant());
        }
    }

    /**
     * Refuses a certificate of the path whose key is under {@link KeyFloor}: a DSA, short RSA or odd-curve key would
     * let whoever can break it sign as the device or as its CA.
     *
     * @param position where the certificate is in what the device sent, for the message
     */
    static void requireStrongKey(X509Certificate certificate, String position) throws CertificateException {
        String weak = KeyFloor.problem(certificate.getPublicKey());
        if (weak != null) {
            throw CertificateRefusals.weakKey(position + " " + certificate.getSubjectX500Principal().getName()
                    + " has " + weak);
        }
    }

    static void requireStrongSignature(X509Certificate certificate) throws CertificateException {
        String algorithm = certificate.getSigAlgName().toUpperCase(Locale.ROOT);
        if (algorithm.startsWith("SHA1") || algorithm.contains("WITHSHA1") || algorithm.startsWith("MD")) {
            throw CertificateRefusals.weakAlgorithm("certificate " + certificate.getSubjectX500Principal().getName()
                    + " is signed with " + certificate.getSigAlgName() + "; SHA-1 and MD5 signatures are refused");
        }
    }

    /**
     * Refuses a certificate that is not of RFC 5280's shape ({@link CertificateSyntax}), or one with a key usage,
     * extended key usage or subject alternative name the JDK's parse cannot read: the JDK drops such a non-critical
     * extension as if it were absent, and a usage restriction in it would be ignored. Call it before any other
     * question to the certificate: a certificate read lazily is parsed on the first one.
     *
     * @param position where the certificate is in what the device sent, for the message
     */
    static void requireWellFormed(X509Certificate certificate, String position) throws CertificateException {
        String problem = CertificateSyntax.problem(certificate.getEncoded());
        if (problem != null) {
            throw CertificateRefusals.malformed("malformed " + position + ": " + problem);
        }
        try {
            if (certificate.getExtensionValue(KEY_USAGE) != null && certificate.getKeyUsage() == null
                    || certificate.getExtensionValue(EXTENDED_KEY_USAGE) != null
                    && certificate.getExtendedKeyUsage() == null
                    || certificate.getExtensionValue(SUBJECT_ALT_NAME) != null
                    && certificate.getSubjectAlternativeNames() == null) {
                throw CertificateRefusals.malformed("malformed " + position + ": an extension it evaluates is "
                        + "unreadable");
            }
        } catch (CertificateParsingException e) {
            throw CertificateRefusals.malformed("malformed " + position + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            // a certificate read lazily (Netty's) parses now: a DER the JDK refuses surfaces as an unchecked exception
            throw CertificateRefusals.malformed("malformed " + position + ": " + e.getMessage());
        }
    }

    /**
     * Refuses a CA whose policyConstraints is non-critical, which RFC 5280 4.2.1.11 forbids: neither verifier
     * evaluates policies, and a CA that breaks the profile where it restricts its own path is not one to trust.
     *
     * @param position where the certificate is in what the device sent, for the message
     */
    static void requireCriticalPolicyConstraints(X509Certificate ca, String position) throws CertificateException {
        if (nonCriticalPolicyConstraints(ca)) {
            throw CertificateRefusals.malformed("malformed " + position + " " + ca.getSubjectX500Principal().getName()
                    + ": its policyConstraints is not critical (RFC 5280 4.2.1.11)");
        }
    }

    /** Whether the certificate carries a policyConstraints extension that is not marked critical. */
    static boolean nonCriticalPolicyConstraints(X509Certificate certificate) {
        Set<String> other = certificate.getNonCriticalExtensionOIDs();
        return other != null && other.contains(POLICY_CONSTRAINTS);
    }

    /**
     * Refuses a device certificate whose key usage or extended key usage excludes TLS client authentication, and one
     * that claims what only a CA may: keyCertSign without cA (RFC 5280 4.2.1.9), cRLSign (a device issues no CRLs;
     * a gateway rule, as RFC 5280 does not tie that bit to cA), name constraints (4.2.1.10: CA certificates only).
     * Its issuer broke the profile, and another verifier may take such a certificate for the CA it claims to be.
     */
    static void requireClientUsage(X509Certificate device) throws CertificateException {
        boolean[] usage = keyUsage(device);
        if (usage != null && !usage[DIGITAL_SIGNATURE]) {
            throw CertificateRefusals.wrongUsage("device certificate key usage lacks digitalSignature");
        }
        boolean signsForOthers = usage != null && (usage.length > KEY_CERT_SIGN && usage[KEY_CERT_SIGN]
                || usage.length > CRL_SIGN && usage[CRL_SIGN]);
        boolean constrains = hasExtension(device, NAME_CONSTRAINTS);
        // asked only then: the JDK's answer for an absent extension costs exceptions (see keyUsage)
        if ((signsForOthers || constrains) && device.getBasicConstraints() < 0) {
            throw CertificateRefusals.wrongUsage(signsForOthers
                    ? "device certificate may sign certificates or CRLs (keyCertSign, cRLSign) but is not a CA"
                    : "device certificate carries name constraints, which only a CA certificate may");
        }
        List<String> extended;
        try {
            extended = device.getExtendedKeyUsage();
        } catch (CertificateParsingException e) {
            throw CertificateRefusals.wrongUsage("device certificate has an unreadable extended key usage");
        }
        if (extended != null && !extended.contains(CLIENT_AUTH) && !extended.contains(ANY_USAGE)) {
            throw CertificateRefusals.wrongUsage("device certificate extended key usage lacks clientAuth");
        }
    }

    /**
     * Refuses a certificate of the path (device or sent intermediate) with a critical extension outside
     * {@link #UNDERSTOOD_CRITICAL}: the lean walk does not evaluate policies or anything else, so a critical one of
     * those is refused rather than ignored (RFC 5280 4.2); a CA with name constraints never gets here, its chain goes
     * to PKIX. The JDK's validator refuses the extensions it does not know in the same way.
     */
    static void requireUnderstoodCriticalExtensions(X509Certificate certificate) throws CertificateException {
        Set<String> critical = certificate.getCriticalExtensionOIDs();
        if (critical == null) {
            return;
        }
        for (String oid : critical) {
            if (!UNDERSTOOD_CRITICAL.contains(oid)) {
                throw CertificateRefusals.unrecognisedCriticalExtension("certificate "
                        + certificate.getSubjectX500Principal().getName() + " has the critical extension " + oid
                        + ", which the lean verifier does not evaluate");
            }
        }
    }

    /**
     * The key usage bits, or null when the certificate has no key usage extension. Asked directly, the JDK's
     * certificate answers null for an absent extension only after throwing and catching two exceptions with stack
     * traces; device certificates often carry only an extended key usage, and that cost was 1.4-2 % of the gateway's
     * CPU in a ramp of new devices (async-profiler). The extension lists are read without exceptions.
     */
    static boolean[] keyUsage(X509Certificate certificate) {
        return hasExtension(certificate, KEY_USAGE) ? certificate.getKeyUsage() : null;
    }

    /** Whether the certificate carries the extension, critical or not, asked without exceptions (see keyUsage). */
    private static boolean hasExtension(X509Certificate certificate, String oid) {
        Set<String> critical = certificate.getCriticalExtensionOIDs();
        if (critical != null && critical.contains(oid)) {
            return true;
        }
        Set<String> other = certificate.getNonCriticalExtensionOIDs();
        return other != null && other.contains(oid);
    }

    /**
     * Looks the serial up in the CRL of the authority that signed the certificate; with {@code crl-mode: hard} also
     * refuses when that authority has no CRL or one past its next-update. Runs on every handshake, cached or not: it
     * is a hash lookup.
     */
    void requireNotRevoked(CertificateAuthority issuer, BigInteger serial, long nowMillis) throws CertificateException {
        RevocationLists.IssuerCrl crl = crls.of(issuer);
        if (crlHard && (crl == null || crl.staleAt(nowMillis))) {
            throw CertificateRefusals.crlStale(crl == null
                    ? "no CRL of " + issuer + " in listener.tls.crl-file; crl-mode hard refuses its devices"
                    : "the CRL of " + issuer + " is past its next-update " + java.time.Instant.ofEpochMilli(
                            crl.nextUpdateMillis()) + "; crl-mode hard refuses its devices");
        }
        if (crl != null && crl.revokedSerials().contains(serial)) {
            throw CertificateRefusals.revoked("certificate serial " + serial.toString(16) + " of " + issuer
                    + " is revoked");
        }
    }

    /** Every certificate of {@code path} against the CRL of its signer ({@link #requireNotRevoked}). */
    void requireNotRevoked(RevocationPath path, long nowMillis) throws CertificateException {
        for (int i = 0; i < path.length(); i++) {
            requireNotRevoked(path.issuer(i), path.serial(i), nowMillis);
        }
    }
}
