package io.mqttgw.core.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCertificateException;
import io.netty.internal.tcnative.CertificateVerifier;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXReason;

/**
 * The exceptions a device-certificate refusal is thrown as, made so that each TLS engine sends the matching alert.
 * Netty's OpenSSL engine takes the X509_V_ERR code of an {@link OpenSslCertificateException} as the verify result, and
 * BoringSSL turns that code into the alert ({@code unknown_ca}, {@code certificate_expired}, {@code
 * certificate_revoked}, ...); any other exception becomes X509_V_ERR_UNSPECIFIED, which BoringSSL sends as {@code
 * internal_error}. The JDK engine reads the reason of a {@link CertPathValidatorException} that is the direct cause of
 * the {@link CertificateException}, so each refusal carries one. {@link TlsFailureReason} classifies by the same
 * reason. Stateless; called on event loops.
 */
public final class CertificateRefusals {
    private static final boolean NATIVE = OpenSsl.isAvailable();

    private CertificateRefusals() {
    }

    /** No configured CA issued the certificate (or its chain): {@code unknown_ca}. */
    public static CertificateException unknownCa(String message) {
        return refusal(message, PKIXReason.NO_TRUST_ANCHOR,
                NATIVE ? CertificateVerifier.X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY : 0);
    }

    /** Past its notAfter: {@code certificate_expired}. */
    public static CertificateException expired(String message) {
        return refusal(message, BasicReason.EXPIRED, NATIVE ? CertificateVerifier.X509_V_ERR_CERT_HAS_EXPIRED : 0);
    }

    /** Before its notBefore: {@code bad_certificate} (BoringSSL and the JDK agree on no better alert). */
    public static CertificateException notYetValid(String message) {
        return refusal(message, BasicReason.NOT_YET_VALID,
                NATIVE ? CertificateVerifier.X509_V_ERR_CERT_NOT_YET_VALID : 0);
    }

    /** Listed in its issuer's CRL: {@code certificate_revoked}. */
    public static CertificateException revoked(String message) {
        return refusal(message, BasicReason.REVOKED, NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REVOKED : 0);
    }

    /** The issuer's CRL is missing or past its next-update while {@code listener.tls.crl-mode} is hard. */
    public static CertificateException crlStale(String message) {
        return refusal(message, BasicReason.UNDETERMINED_REVOCATION_STATUS,
                NATIVE ? CertificateVerifier.X509_V_ERR_UNABLE_TO_GET_CRL : 0);
    }

    /** The signature does not verify with the issuer's key. */
    public static CertificateException badSignature(String message) {
        return refusal(message, BasicReason.INVALID_SIGNATURE,
                NATIVE ? CertificateVerifier.X509_V_ERR_CERT_SIGNATURE_FAILURE : 0);
    }

    /** Signed with an algorithm the gateway does not accept (SHA-1). */
    public static CertificateException weakAlgorithm(String message) {
        return refusal(message, BasicReason.ALGORITHM_CONSTRAINED,
                NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REJECTED : 0);
    }

    /** Key usage or extended key usage that does not allow TLS client authentication, or a non-CA issuer. */
    public static CertificateException wrongUsage(String message) {
        return refusal(message, PKIXReason.INVALID_KEY_USAGE,
                NATIVE ? CertificateVerifier.X509_V_ERR_INVALID_PURPOSE : 0);
    }

    /**
     * A name of the path outside the name constraints of a CA above it, or more of them than the verifier compares
     * ({@link StrictNameConstraints#MAX_COMPARISONS}): refused as the JDK's validator refuses a name it finds outside
     * them, counted as {@code certificate_rejected}.
     */
    public static CertificateException nameNotAllowed(String message) {
        return refusal(message, PKIXReason.INVALID_NAME,
                NATIVE ? CertificateVerifier.X509_V_ERR_PERMITTED_VIOLATION : 0);
    }

    /**
     * A critical extension the verifier does not process (RFC 5280 4.2: such a certificate must not be accepted):
     * {@code certificate_unknown}, the alert BoringSSL sends for this code, as its own verifier would.
     */
    public static CertificateException unrecognisedCriticalExtension(String message) {
        return refusal(message, PKIXReason.UNRECOGNIZED_CRIT_EXT,
                NATIVE ? CertificateVerifier.X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION : 0);
    }

    /**
     * Why a certificate names no device exactly ({@link IdentityDer}); the reason of its refusal, which
     * {@link TlsFailureReason} counts. The JDK has no reason for this; its engine's server side (JDK 17) sends
     * {@code certificate_unknown} for every refused client certificate anyway.
     */
    enum IdentityReason implements CertPathValidatorException.Reason {
        /** More than one CN, or more than one SAN entry of the configured kind. */
        AMBIGUOUS,
        /** The identity's value is not a string of the types read, or its bytes break its type's rules. */
        BAD_ENCODING
    }

    /** Why a key is refused; the reason {@link TlsFailureReason} counts as {@code weak_key}. */
    enum KeyReason implements CertPathValidatorException.Reason {
        /** Under the key floor ({@link KeyFloor}): DSA, RSA under 2048 bits, a curve other than P-256/384/521. */
        WEAK_KEY
    }

    /** A key of the path under the floor: {@code bad_certificate}. */
    public static CertificateException weakKey(String message) {
        return refusal(message, KeyReason.WEAK_KEY, NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REJECTED : 0);
    }

    /** More than one value the identity could be read from: {@code bad_certificate}. */
    public static CertificateException ambiguousIdentity(String message) {
        return refusal(message, IdentityReason.AMBIGUOUS, NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REJECTED : 0);
    }

    /** An identity that is not a string read exactly (RFC 5280's DirectoryString rules): {@code bad_certificate}. */
    public static CertificateException badIdentityEncoding(String message) {
        return refusal(message, IdentityReason.BAD_ENCODING,
                NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REJECTED : 0);
    }

    /**
     * A certificate that is not of RFC 5280's shape, or an extension the verifier evaluates that cannot be read:
     * {@code bad_certificate} (X509_V_ERR_CERT_REJECTED, as BoringSSL maps it). The {@link CertificateParsingException}
     * under the reason is what {@link TlsFailureReason} counts as {@code malformed_certificate}.
     */
    public static CertificateException malformed(String message) {
        return refusal(message, BasicReason.UNSPECIFIED, NATIVE ? CertificateVerifier.X509_V_ERR_CERT_REJECTED : 0,
                new CertificateParsingException(message));
    }

    private static CertificateException refusal(String message, CertPathValidatorException.Reason reason, int code) {
        return refusal(message, reason, code, null);
    }

    private static CertificateException refusal(String message, CertPathValidatorException.Reason reason, int code,
                                                Throwable detail) {
        CertPathValidatorException cause = new CertPathValidatorException(message, detail, null, -1, reason);
        return NATIVE ? new OpenSslCertificateException(message, cause, code) : new CertificateException(message,
                cause);
    }
}
