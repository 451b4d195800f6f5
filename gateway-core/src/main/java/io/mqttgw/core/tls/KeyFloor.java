package io.mqttgw.core.tls;

import java.security.PublicKey;
import java.security.interfaces.RSAKey;
import java.util.Set;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/**
 * The weakest key a device, an intermediate it sends or a configured CA may have: RSA of at least
 * {@value #MIN_RSA_BITS} bits, ECDSA on P-256, P-384 or P-521 (named, not explicit parameters), Ed25519 or Ed448.
 * Everything else is refused: DSA, short RSA, and curves such as P-192 or secp256k1 that no TLS 1.3 peer uses for
 * certificates and that BouncyCastle's arithmetic would otherwise verify without complaint. Stateless; any thread.
 */
final class KeyFloor {
    static final int MIN_RSA_BITS = 2048;
    private static final Set<String> CURVES = Set.of("1.2.840.10045.3.1.7", "1.3.132.0.34", "1.3.132.0.35");
    private static final String EC_PUBLIC_KEY = "1.2.840.10045.2.1";

    private KeyFloor() {
    }

    /** Null when {@code key} is strong enough; otherwise what it is, for the refusal's message. */
    static String problem(PublicKey key) {
        String algorithm = key.getAlgorithm();
        if (key instanceof RSAKey rsa) {
            int bits = rsa.getModulus().bitLength();
            return bits >= MIN_RSA_BITS ? null : "an RSA key of " + bits + " bits (at least " + MIN_RSA_BITS
                    + " are required)";
        }
        if ("Ed25519".equals(algorithm) || "Ed448".equals(algorithm) || "EdDSA".equals(algorithm)) {
            return null;
        }
        if ("EC".equals(algorithm)) {
            String curve = curve(key);
            return curve != null && CURVES.contains(curve) ? null : "an EC key on "
                    + (curve == null ? "explicit or unreadable parameters" : "the curve " + curve)
                    + " (P-256, P-384 or P-521 are required)";
        }
        return "a " + algorithm + " key (RSA of " + MIN_RSA_BITS + " bits or more, ECDSA on P-256/384/521, Ed25519 or "
                + "Ed448 are required)";
    }

    /** The named curve's OID of an EC key, or null for explicit parameters or an encoding that cannot be read. */
    private static String curve(PublicKey key) {
        try {
            SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(key.getEncoded());
            if (!EC_PUBLIC_KEY.equals(info.getAlgorithm().getAlgorithm().getId())) {
                return null;
            }
            return info.getAlgorithm().getParameters() instanceof ASN1ObjectIdentifier oid ? oid.getId() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
