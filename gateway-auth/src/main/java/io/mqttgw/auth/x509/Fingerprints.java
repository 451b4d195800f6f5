package io.mqttgw.auth.x509;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/** SHA-256 fingerprints of certificates, written as 64 lower-case hex digits. Thread-safe. */
public final class Fingerprints {
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(Fingerprints::newSha256);

    private Fingerprints() {
    }

    /** The fingerprint of {@code certificate}, or null without one. */
    public static String sha256(X509Certificate certificate) {
        if (certificate == null) {
            return null;
        }
        try {
            return HexFormat.of().formatHex(sha256().digest(certificate.getEncoded()));
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("certificate cannot be encoded: " + e.getMessage(), e);
        }
    }

    /**
     * A fingerprint as written by people or tools ({@code AB:CD:...}, upper or lower case) in the canonical form;
     * throws {@link IllegalArgumentException} when it is not 32 bytes of hex.
     */
    public static String normalize(String written) {
        String hex = written.trim().replace(":", "").toLowerCase(Locale.ROOT);
        if (hex.length() != 64 || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new IllegalArgumentException("not a SHA-256 fingerprint (64 hex digits, colons allowed)");
        }
        return hex;
    }

    /** A SHA-256 digest owned by the calling thread, reset. */
    public static MessageDigest sha256() {
        MessageDigest d = SHA256.get();
        d.reset();
        return d;
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
