package io.mqttgw.core.tls;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.math.ec.ECPoint;

/**
 * An issuer's public key, prepared for checking the signatures of the certificates it issued.
 *
 * <p>Why not {@link Signature}: on JDK 17 the SunEC provider verifies a P-256 signature in about 1 ms of CPU (two
 * generic scalar multiplications, nothing precomputed), which was most of the Java work of a device's first
 * handshake. BouncyCastle's curve-specific arithmetic, with the issuer's point table precomputed once, does it in
 * about 0.1 ms (measured side by side in one process, docs/benchmarks/history.md, "Cold handshake CPU"). ECDSA with
 * SHA-256/384/512
 * on the curves BouncyCastle has custom arithmetic for (P-256, P-384, P-521 ...) takes that path; every other key or
 * algorithm (RSA, RSASSA-PSS, Ed25519) keeps the JDK's. A configured CA with a P-256 key, the common case, goes one
 * step further: it may check a certificate read from its DER (BouncyCastle's {@code ECDSASigner} with the per-thread
 * precomputed point, the same arithmetic as every other curve).
 *
 * <p>Threading: called by every event loop at once. BouncyCastle memoizes the precomputed table in the point object
 * under the point's monitor, so each thread gets its own copy of the point: no lock is shared between event loops.
 */
final class IssuerKey {
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String ECDSA_WITH_SHA384 = "1.2.840.10045.4.3.3";
    private static final String ECDSA_WITH_SHA512 = "1.2.840.10045.4.3.4";
    private static final String P256 = "1.2.840.10045.3.1.7";

    /** SHA-256, SHA-384 and SHA-512 of this thread, made on first use ({@link #hasher}). */
    private static final ThreadLocal<MessageDigest[]> HASHERS = ThreadLocal.withInitial(() -> new MessageDigest[3]);

    private final PublicKey key;
    /** Null when the key is not EC on a curve with custom arithmetic: then the JDK verifies. */
    private final ECDomainParameters domain;
    private final byte[] encodedPoint;
    private final ThreadLocal<ECPublicKeyParameters> perThread;
    /** A configured P-256 key: the DER fast path may check with it. False for other keys and for sent ones. */
    private final boolean p256;

    private IssuerKey(PublicKey key, ECDomainParameters domain, byte[] encodedPoint, boolean keepTables,
                      boolean p256) {
        this.key = key;
        this.domain = domain;
        this.encodedPoint = encodedPoint;
        this.p256 = p256 && keepTables;
        this.perThread = domain != null && keepTables ? ThreadLocal.withInitial(this::decodePoint) : null;
    }

    /** A key whose per-thread tables are kept: for the configured CAs, which sign every device certificate. */
    static IssuerKey configured(PublicKey key) {
        return of(key, true);
    }

    /** A key used once (an intermediate the device sent): nothing is kept. */
    static IssuerKey sent(PublicKey key) {
        return of(key, false);
    }

    private static IssuerKey of(PublicKey key, boolean keepTables) {
        if (!"EC".equals(key.getAlgorithm())) {
            return new IssuerKey(key, null, null, false, false);
        }
        SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(key.getEncoded());
        if (!(info.getAlgorithm().getParameters() instanceof ASN1ObjectIdentifier curve)) {
            return new IssuerKey(key, null, null, false, false);
        }
        X9ECParameters x9 = CustomNamedCurves.getByOID(curve);
        if (x9 == null) {
            return new IssuerKey(key, null, null, false, false);
        }
        ECDomainParameters domain = new ECDomainParameters(x9.getCurve(), x9.getG(), x9.getN(), x9.getH());
        return new IssuerKey(key, domain, info.getPublicKeyData().getOctets(), keepTables, P256.equals(curve.getId()));
    }

    /** True when signatures are checked with BouncyCastle's curve arithmetic rather than the JDK's provider. */
    boolean curveArithmetic() {
        return domain != null;
    }

    /** True when {@code certificate}'s signature verifies with this key; false for any failure, never throws. */
    boolean verifies(X509Certificate certificate) {
        try {
            String digest = domain == null ? null : ecdsaDigest(certificate);
            if (digest == null) {
                return jdkVerifies(certificate);
            }
            byte[] tbs = certificate.getTBSCertificate();
            return ecdsaVerifies(digest, certificate.getSignature(), tbs, 0, tbs.length);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether the signature of a certificate read from its DER verifies with this key, over the to-be-signed bytes
     * where they lie. Only a configured P-256 key checks this way; any other answers false and the caller takes the
     * path through the JDK's parse. Never throws.
     */
    boolean verifies(CertificateDer.Signed certificate) {
        if (!p256) {
            return false;
        }
        try {
            return ecdsaVerifies(certificate.digest(), certificate.signature(), certificate.der(),
                    certificate.tbsOffset(), certificate.tbsLength());
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** An ECDSA signature (strict DER) over {@code data[offset, offset + length)}, hashed with {@code digest}. */
    private boolean ecdsaVerifies(String digest, byte[] signature, byte[] data, int offset, int length)
            throws GeneralSecurityException {
        EcdsaSignature rs = EcdsaSignature.strictDer(signature);
        if (rs == null) {
            return false;
        }
        MessageDigest hasher = hasher(digest);
        hasher.update(data, offset, length);
        byte[] hash = hasher.digest();
        ECDSASigner signer = new ECDSASigner();
        signer.init(false, perThread != null ? perThread.get() : decodePoint());
        return signer.verifySignature(hash, rs.r(), rs.s());
    }

    /**
     * This thread's digest of that name, reset: {@code MessageDigest.getInstance} looks the algorithm up through the
     * security providers and builds a new digest, state and buffers included, on every cold handshake.
     */
    private static MessageDigest hasher(String digest) throws NoSuchAlgorithmException {
        int slot = switch (digest) {
            case "SHA-256" -> 0;
            case "SHA-384" -> 1;
            case "SHA-512" -> 2;
            default -> -1;
        };
        if (slot < 0) {
            return MessageDigest.getInstance(digest);
        }
        MessageDigest[] hashers = HASHERS.get();
        if (hashers[slot] == null) {
            hashers[slot] = MessageDigest.getInstance(digest);
        }
        // digest() resets it too; this covers a check that ended between update and digest
        hashers[slot].reset();
        return hashers[slot];
    }

    private ECPublicKeyParameters decodePoint() {
        ECPoint point = domain.getCurve().decodePoint(encodedPoint);
        return new ECPublicKeyParameters(point, domain);
    }

    /** Through the provider, but never {@code certificate.verify}, whose parsed object would memo the result. */
    private boolean jdkVerifies(X509Certificate certificate) throws GeneralSecurityException {
        if (certificate.getSigAlgParams() != null && certificate.getSigAlgName().contains("PSS")) {
            certificate.verify(key);
            return true;
        }
        Signature signature = Signature.getInstance(certificate.getSigAlgName());
        signature.initVerify(key);
        signature.update(certificate.getTBSCertificate());
        return signature.verify(certificate.getSignature());
    }

    /** The digest of an ECDSA signature algorithm this class verifies itself, or null. */
    private static String ecdsaDigest(X509Certificate certificate) {
        if (certificate.getSigAlgParams() != null) {
            return null;
        }
        return switch (certificate.getSigAlgOID()) {
            case ECDSA_WITH_SHA256 -> "SHA-256";
            case ECDSA_WITH_SHA384 -> "SHA-384";
            case ECDSA_WITH_SHA512 -> "SHA-512";
            default -> null;
        };
    }
}
