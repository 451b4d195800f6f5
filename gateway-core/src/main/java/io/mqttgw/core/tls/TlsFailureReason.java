package io.mqttgw.core.tls;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.CertificateRevokedException;
import java.security.cert.PKIXReason;
import java.util.Locale;

/** Why a TLS handshake failed, read from the exception types in the cause chain (never from message text). */
public enum TlsFailureReason {
    /** Not finished within {@code listener.tls.handshake-timeout}. */
    TIMEOUT,
    /** The first bytes were not a TLS record (plain MQTT on the TLS port, a scanner). */
    NOT_TLS,
    /** The client certificate is outside its validity period. */
    CERTIFICATE_EXPIRED,
    /** The client certificate is listed in a CRL from {@code listener.tls.crl-file}. */
    CERTIFICATE_REVOKED,
    /** The client certificate does not chain to a CA of {@code listener.tls.ca-file}. */
    CERTIFICATE_UNKNOWN_CA,
    /** The issuer's CRL is missing or past its next-update and {@code listener.tls.crl-mode} is hard. */
    CRL_STALE,
    /**
     * The client certificate (or one the device sent with it) is not of RFC 5280's shape, or an extension the
     * verifier evaluates (key usage, extended key usage, basic constraints, subject alternative name) cannot be read.
     */
    MALFORMED_CERTIFICATE,
    /**
     * The client certificate did not verify for another reason: bad signature, SHA-1, key usage, a critical extension
     * the verifier does not evaluate, a name outside the name constraints of a CA above it (or more names times
     * constraints than the verifier compares).
     */
    CERTIFICATE_REJECTED,
    /**
     * A key of the client's path is under the floor: DSA, RSA under 2048 bits, or a curve other than P-256, P-384
     * and P-521 (such as P-192 or secp256k1).
     */
    WEAK_KEY,
    /**
     * The client certificate names its device more than once: two CNs, or two SAN entries of the kind
     * {@code identity.source} reads.
     */
    AMBIGUOUS_IDENTITY,
    /**
     * The client certificate's identity is not a string the gateway reads exactly: a BMPString of odd length, an
     * OCTET STRING, a PrintableString with characters outside its set, ...
     */
    BAD_IDENTITY_ENCODING,
    /**
     * The device ended the handshake with a TLS alert: typically it does not trust the server certificate
     * ({@code unknown_ca}, {@code bad_certificate}) or shares no protocol version with the server. The log names the
     * alert. Only alerts sent in the clear are seen as such (TLS 1.2, and TLS 1.3 clients that reject the server before
     * switching keys); an encrypted one counts as {@link #HANDSHAKE_FAILED}.
     */
    DEVICE_ALERT,
    /** The peer closed the connection during the handshake. */
    PEER_CLOSED,
    /** Any other handshake failure: no client certificate, no common protocol or cipher, bad record. */
    HANDSHAKE_FAILED;

    private final String label = name().toLowerCase(Locale.ROOT);

    public String label() {
        return label;
    }

    /** Specific causes anywhere in the chain win over generic ones (a validator wraps the expiry it found). */
    public static TlsFailureReason classify(Throwable failure) {
        boolean certificate = false;
        boolean closed = false;
        int depth = 0;
        // bounded: a cause cycle (A -> B -> A) must not spin an event loop
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof SslHandshakeTimeoutException) {
                return TIMEOUT;
            }
            if (t instanceof NotSslRecordException) {
                return NOT_TLS;
            }
            if (t instanceof CertificateRevokedException || t instanceof CertPathValidatorException r
                    && r.getReason() == CertPathValidatorException.BasicReason.REVOKED) {
                return CERTIFICATE_REVOKED;
            }
            if (t instanceof CertPathValidatorException u && u.getReason() == PKIXReason.NO_TRUST_ANCHOR) {
                return CERTIFICATE_UNKNOWN_CA;
            }
            if (t instanceof CertPathValidatorException s
                    && s.getReason() == CertPathValidatorException.BasicReason.UNDETERMINED_REVOCATION_STATUS) {
                return CRL_STALE;
            }
            if (t instanceof CertPathValidatorException i
                    && i.getReason() instanceof CertificateRefusals.IdentityReason identity) {
                return identity == CertificateRefusals.IdentityReason.AMBIGUOUS ? AMBIGUOUS_IDENTITY
                        : BAD_IDENTITY_ENCODING;
            }
            if (t instanceof CertPathValidatorException k && k.getReason() == CertificateRefusals.KeyReason.WEAK_KEY) {
                return WEAK_KEY;
            }
            if (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException
                    || t instanceof CertPathValidatorException v
                    && v.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
                return CERTIFICATE_EXPIRED;
            }
            // the JDK's certificate factory reports a DER it cannot parse as a CertificateException over the
            // IOException of its decoder (the JDK engine parses the client's certificates before any trust manager)
            if (t instanceof CertificateParsingException
                    || t instanceof CertificateException && t.getCause() instanceof java.io.IOException) {
                return MALFORMED_CERTIFICATE;
            }
            certificate |= t instanceof CertificateException || t instanceof CertPathValidatorException;
            closed |= t instanceof ClosedChannelException;
        }
        if (certificate) {
            return CERTIFICATE_REJECTED;
        }
        return closed ? PEER_CLOSED : HANDSHAKE_FAILED;
    }
}
