package io.mqttgw.core.testkit;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates netty-pkitesting cannot make: keys of any type and size (RSA 1024, DSA, P-192, secp256k1) on either
 * side of a signature, and any extension, through BouncyCastle's builder and provider. CAs get basicConstraints
 * cA=true (critical) and keyCertSign|cRLSign unless the caller's extensions say otherwise; devices get clientAuth.
 * Everything is valid from an hour ago for a day. Stateless but for a serial counter.
 */
public final class CertificateForge {
    private static final BouncyCastleProvider BC = new BouncyCastleProvider();
    private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime() & 0xffffff);
    private static final Instant NOW = Instant.now();

    /** Adds extensions to a certificate being built; may add none. */
    public interface Extensions {
        void addTo(X509v3CertificateBuilder builder) throws Exception;
    }

    /** A key issued certificate and the key it certifies. */
    public record Issued(X509Certificate certificate, KeyPair key) {
        public String certificatePem() {
            return pem(certificate);
        }
    }

    private CertificateForge() {
    }

    /** A key pair: {@code p256}, {@code p384}, {@code p192}, {@code secp256k1}, {@code rsa<bits>} or {@code dsa}. */
    public static KeyPair keys(String kind) {
        try {
            KeyPairGenerator generator;
            if (kind.startsWith("rsa")) {
                generator = KeyPairGenerator.getInstance("RSA", BC);
                generator.initialize(Integer.parseInt(kind.substring(3)), new SecureRandom());
            } else if ("dsa".equals(kind)) {
                generator = KeyPairGenerator.getInstance("DSA", BC);
                generator.initialize(2048, new SecureRandom());
            } else {
                generator = KeyPairGenerator.getInstance("EC", BC);
                String curve = switch (kind) {
                    case "p256" -> "secp256r1";
                    case "p384" -> "secp384r1";
                    case "p192" -> "secp192r1";
                    default -> kind;
                };
                generator.initialize(new ECGenParameterSpec(curve), new SecureRandom());
            }
            return generator.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException("cannot make a " + kind + " key", e);
        }
    }

    /** A self-signed CA with {@code key}; {@code extensions} replace the default CA extensions when not null. */
    public static Issued ca(String subject, KeyPair key, Extensions extensions) {
        return new Issued(build(subject, subject, key.getPublic(), key.getPrivate(), extensions != null ? extensions
                : CertificateForge::caExtensions), key);
    }

    /** A CA issued by {@code issuer}, with the default CA extensions and then {@code extra} (may be null). */
    public static Issued intermediate(String subject, KeyPair key, Issued issuer, Extensions extra) {
        return new Issued(build(subject, issuer.certificate().getSubjectX500Principal().getName(), key.getPublic(),
                issuer.key().getPrivate(), b -> {
                    caExtensions(b);
                    if (extra != null) {
                        extra.addTo(b);
                    }
                }), key);
    }

    /** A client-auth device certificate of {@code issuer}; {@code extra} adds extensions (may be null). */
    public static Issued device(String subject, KeyPair key, Issued issuer, Extensions extra) {
        return new Issued(build(subject, issuer.certificate().getSubjectX500Principal().getName(), key.getPublic(),
                issuer.key().getPrivate(), b -> {
                    b.addExtension(Extension.extendedKeyUsage, false,
                            new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
                    if (extra != null) {
                        extra.addTo(b);
                    }
                }), key);
    }

    /** basicConstraints cA=true (critical) and key usage keyCertSign|cRLSign (critical). */
    public static void caExtensions(X509v3CertificateBuilder builder) throws Exception {
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    }

    private static X509Certificate build(String subject, String issuer, PublicKey key, PrivateKey signer,
                                         Extensions extensions) {
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(new X500Name(issuer),
                    BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(NOW.minus(1, ChronoUnit.HOURS)),
                    Date.from(NOW.plus(1, ChronoUnit.DAYS)), new X500Name(subject), key);
            extensions.addTo(builder);
            String algorithm = switch (signer.getAlgorithm()) {
                case "RSA" -> "SHA256withRSA";
                case "DSA" -> "SHA256withDSA";
                default -> "SHA256withECDSA";
            };
            return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(
                    algorithm).setProvider(BC).build(signer)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot build " + subject, e);
        }
    }

    /** The certificate as PEM. */
    public static String pem(X509Certificate certificate) {
        try {
            return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64,
                    "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
