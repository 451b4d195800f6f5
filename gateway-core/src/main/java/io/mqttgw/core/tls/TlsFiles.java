package io.mqttgw.core.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the TLS listener's PEM files. Every failure is an {@link IllegalStateException} whose message names the
 * configuration key, the path and the reason, so {@code check-config} and a failed reload say which file to fix.
 * Every file is read with BouncyCastle's PEM parser ({@link #pem}): certificates, CRLs, and private keys in PKCS#8
 * ({@code PRIVATE KEY}), SEC1 ({@code EC PRIVATE KEY}) and PKCS#1 ({@code RSA PRIVATE KEY}) form; encrypted keys are
 * refused. A file without PEM blocks is read as DER certificates or CRLs by the JDK. Used by the gateway's
 * listeners, the auth client's CA file and the bench. Stateless.
 */
public final class TlsFiles {
    private TlsFiles() {
    }

    /** The server's certificate chain and its private key, checked to belong together. */
    public record ServerCredentials(X509Certificate[] chain, PrivateKey key) {
    }

    /** Reads {@code listener.tls.cert-file} and {@code listener.tls.key-file} and checks the key matches. */
    public static ServerCredentials server(Path certFile, Path keyFile) {
        List<X509Certificate> chain = certificates("listener.tls.cert-file", certFile);
        PrivateKey key = privateKey("listener.tls.key-file", keyFile);
        if (!matches(key, chain.get(0).getPublicKey())) {
            throw new IllegalStateException("listener.tls.key-file=" + keyFile
                    + " does not match the server certificate"
                    + " in listener.tls.cert-file=" + certFile + " (" + chain.get(0).getSubjectX500Principal().getName()
                    + "): the key signs what the certificate's public key cannot verify; use the key the certificate "
                    + "was issued for");
        }
        return new ServerCredentials(chain.toArray(new X509Certificate[0]), key);
    }

    /** How long before its notAfter a server certificate is warned about (startup, check-config, reloads). */
    public static final Duration SERVER_EXPIRY_WARNING = Duration.ofDays(30);

    /**
     * Refuses a server certificate outside its validity period: every device would refuse the handshake, so the node
     * would be up and serve no one. The message names the key, the path, the dates and the fix.
     */
    public static void checkServerValidity(String key, Path file, X509Certificate certificate, long nowMillis) {
        long notAfter = certificate.getNotAfter().getTime();
        long notBefore = certificate.getNotBefore().getTime();
        String subject = certificate.getSubjectX500Principal().getName();
        if (nowMillis > notAfter) {
            throw new IllegalStateException(key + "=" + file + ": the server certificate (" + subject + ") expired on "
                    + Instant.ofEpochMilli(notAfter) + ", and every device would refuse it; put a renewed "
                    + "certificate in " + key + " (and its key in listener.tls.key-file)");
        }
        if (nowMillis < notBefore) {
            throw new IllegalStateException(key + "=" + file + ": the server certificate (" + subject
                    + ") is not valid "
                    + "before " + Instant.ofEpochMilli(notBefore) + ", and devices would refuse it until then;"
                    + " check this host's clock, or use a certificate valid now");
        }
    }

    /** A warning when the server certificate ends within {@link #SERVER_EXPIRY_WARNING}, else null. */
    public static String serverExpiryWarning(String key, Path file, X509Certificate certificate, long nowMillis) {
        long left = certificate.getNotAfter().getTime() - nowMillis;
        if (left > SERVER_EXPIRY_WARNING.toMillis()) {
            return null;
        }
        return key + "=" + file + ": the server certificate (" + certificate.getSubjectX500Principal().getName()
                + ") expires on " + Instant.ofEpochMilli(certificate.getNotAfter().getTime()) + ", in "
                + Duration.ofMillis(Math.max(0, left)).toDays() + " days; renew it before then (a running "
                + "node picks up the new file within listener.tls.reload-interval)";
    }

    /**
     * What a PEM file holds, as BouncyCastle's {@link PEMParser} reads it, in file order: certificates, CRLs and the
     * first private key (null without one); other blocks (such as {@code EC PARAMETERS}) are skipped.
     *
     * @param encryptedKey whether the first private key block is encrypted (then {@code privateKey} is null)
     * @param pemBlocks    how many PEM blocks the file holds (0: it is not PEM, perhaps DER)
     */
    public record PemContents(List<X509CertificateHolder> certificates, List<X509CRLHolder> crls,
                              PrivateKeyInfo privateKey, boolean encryptedKey, int pemBlocks) {
    }

    /** Reads every PEM block of {@code file}; fails naming {@code key}, the path and the reason. */
    public static PemContents pem(String key, Path file) {
        InputStream in = open(key, file);
        try (in; PEMParser pem = new PEMParser(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            List<X509CertificateHolder> certificates = new ArrayList<>();
            List<X509CRLHolder> crls = new ArrayList<>();
            PrivateKeyInfo privateKey = null;
            boolean encrypted = false;
            int blocks = 0;
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                blocks++;
                boolean firstKey = privateKey == null && !encrypted;
                if (o instanceof X509CertificateHolder c) {
                    certificates.add(c);
                } else if (o instanceof X509CRLHolder c) {
                    crls.add(c);
                } else if (o instanceof PEMKeyPair pair && firstKey) {
                    privateKey = pair.getPrivateKeyInfo();
                } else if (o instanceof PrivateKeyInfo info && firstKey) {
                    privateKey = info;
                } else if ((o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo)
                        && firstKey) {
                    encrypted = true;
                }
            }
            return new PemContents(List.copyOf(certificates), List.copyOf(crls), privateKey, encrypted, blocks);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(key + "=" + file + ": not a readable PEM file: " + e.getMessage()
                    + " (expected -----BEGIN ...----- blocks of base64)", e);
        }
    }

    /** The certificates of a PEM (or DER) file; at least one. */
    public static List<X509Certificate> certificates(String key, Path file) {
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        List<X509Certificate> out = objects(key, file, X509Certificate.class, PemContents::certificates,
                converter::getCertificate);
        if (out.isEmpty()) {
            throw new IllegalStateException(key + "=" + file + ": no certificate in the file (expected PEM "
                    + "-----BEGIN CERTIFICATE----- blocks)");
        }
        return out;
    }

    /** The CRLs of a PEM or DER file (possibly none). */
    public static List<X509CRL> crls(String key, Path file) {
        JcaX509CRLConverter converter = new JcaX509CRLConverter();
        return objects(key, file, X509CRL.class, PemContents::crls, converter::getCRL);
    }

    /** How a PEM object becomes its JDK counterpart. */
    private interface Converter<H, T> {
        T convert(H held) throws GeneralSecurityException;
    }

    /**
     * The certificates or CRLs ({@code type}) of a file: its PEM blocks of that kind, or, in a file without PEM
     * blocks, what the JDK's X.509 factory reads from it as DER.
     */
    private static <H, T> List<T> objects(String key, Path file, Class<T> type, Function<PemContents, List<H>> held,
                                          Converter<H, T> converter) {
        PemContents pem = pem(key, file);
        boolean crls = type == X509CRL.class;
        List<T> out = new ArrayList<>();
        try {
            if (pem.pemBlocks() == 0) {
                try (InputStream in = open(key, file)) {
                    CertificateFactory factory = CertificateFactory.getInstance("X.509");
                    for (Object o : crls ? factory.generateCRLs(in) : factory.generateCertificates(in)) {
                        out.add(type.cast(o));
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(key + "=" + file + ": cannot read: " + e, e);
                }
            }
            for (H h : held.apply(pem)) {
                out.add(converter.convert(h));
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(key + "=" + file + ": not a readable " + (crls ? "CRL" : "certificate")
                    + " file: " + e.getMessage(), e);
        }
        return out;
    }

    /** The first private key of a PEM file, in PKCS#8, SEC1 or PKCS#1 form. */
    public static PrivateKey privateKey(String key, Path file) {
        PemContents pem = pem(key, file);
        if (pem.encryptedKey()) {
            throw new IllegalStateException(key + "=" + file + ": the private key is encrypted; the gateway "
                    + "reads unencrypted keys only (decrypt it with openssl pkey)");
        }
        if (pem.privateKey() == null) {
            throw new IllegalStateException(key + "=" + file + ": no private key in the file (expected PEM PRIVATE "
                    + "KEY, EC PRIVATE KEY or RSA PRIVATE KEY)");
        }
        try {
            return new JcaPEMKeyConverter().getPrivateKey(pem.privateKey());
        } catch (IOException e) {
            throw new IllegalStateException(key + "=" + file + ": not a readable private key: " + e.getMessage(), e);
        }
    }

    /** Opens the file, or fails naming the key, the path and why (missing, not permitted, a directory). */
    private static InputStream open(String key, Path file) {
        try {
            if (Files.isDirectory(file)) {
                throw new IllegalStateException(key + "=" + file + ": is a directory, not a file");
            }
            return Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            throw new IllegalStateException(key + "=" + file + ": cannot read: no such file", e);
        } catch (AccessDeniedException e) {
            throw new IllegalStateException(key + "=" + file + ": cannot read: permission denied", e);
        } catch (IOException e) {
            throw new IllegalStateException(key + "=" + file + ": cannot read: " + e, e);
        }
    }

    private static boolean matches(PrivateKey key, PublicKey certified) {
        if (!key.getAlgorithm().equals(certified.getAlgorithm())) {
            return false;
        }
        try {
            String algorithm = "EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA";
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(certified);
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
