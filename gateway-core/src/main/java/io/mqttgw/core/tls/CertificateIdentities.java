package io.mqttgw.core.tls;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * Reads a device identity from a verified certificate: the subject's CN, or the SAN URI or DNS name, each read
 * exactly from the DER by {@link IdentityDer} (the string types RFC 5280 names, each by its own rules). A certificate
 * that names its device ambiguously or in bytes its string type does not allow is refused with a
 * {@link CertificateRefusals} exception, by the trust manager during the handshake ({@link #read}) and
 * again when the identity is taken. Immutable; any thread.
 */
public final class CertificateIdentities {
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";

    private final String source;

    /** @param source {@code cn}, {@code san-uri} or {@code san-dns} ({@code identity.source}) */
    public CertificateIdentities(String source) {
        this.source = source;
    }

    /** Whether the identity is the subject's common name ({@code identity.source: cn}). */
    boolean fromCommonName() {
        return "cn".equals(source);
    }

    /**
     * The identity, or null when the certificate does not carry one of the configured kind.
     *
     * @throws CertificateException the certificate carries more than one, or one that is not a string read exactly
     */
    public String identityOf(X509Certificate certificate) throws CertificateException {
        return switch (source) {
            case "cn" -> commonName(certificate);
            case "san-uri" -> subjectAltName(certificate, IdentityDer.SAN_URI);
            case "san-dns" -> subjectAltName(certificate, IdentityDer.SAN_DNS);
            default -> throw new IllegalStateException("identity source " + source);
        };
    }

    /**
     * What the connection keeps of its device's name: the identity (null when the certificate carries none of the
     * configured kind) and the certificate's notAfter (epoch ms).
     */
    record Named(String identity, long notAfterMillis) {
    }

    /**
     * Reads the identity during the handshake, refusing a certificate whose identity {@link #identityOf} would refuse,
     * so the device gets an alert and the refusal is counted with the other TLS failures. What it reads is handed to
     * the handshake handler with the certificate ({@link VerifiedPeer}), so a full handshake reads the name once. The
     * common shape is read from the DER ({@link CertificateDer}), leaving a certificate the lean verifier did not parse
     * unparsed.
     */
    Named read(X509Certificate device) throws CertificateException {
        if (fromCommonName()) {
            CertificateDer.Facts facts = CertificateDer.read(device.getEncoded());
            if (facts != null) {
                return new Named(facts.commonName(), facts.notAfterMillis());
            }
        }
        String identity = identityOf(device);
        return new Named(identity, device.getNotAfter().getTime());
    }

    static String commonName(X509Certificate certificate) throws CertificateException {
        byte[] subject = certificate.getSubjectX500Principal().getEncoded();
        return IdentityDer.commonName(subject, 0, subject.length);
    }

    private static String subjectAltName(X509Certificate certificate, int type) throws CertificateException {
        byte[] extension = certificate.getExtensionValue(SUBJECT_ALT_NAME);
        return extension == null ? null : IdentityDer.subjectAltName(extension, type);
    }
}
