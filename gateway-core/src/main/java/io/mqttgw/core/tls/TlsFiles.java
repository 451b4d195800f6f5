package io.mqttgw.core.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
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
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the TLS listener's PEM files. Every failure is an {@link IllegalStateException} whose message names the
 * configuration key, the path and the reason, so {@code check-config} and a failed reload say which file to fix.
 * Private keys are read in PKCS#8 ({@code PRIVATE KEY}), SEC1 ({@code EC PRIVATE KEY}) and PKCS#1 ({@code RSA PRIVATE
 * KEY}) form through BouncyCastle's PEM parser; encrypted keys are refused. Stateless.
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
            throw new IllegalStateException("listener.tls.key-file=" + keyFile + " does not match the server certificate"
                    + " in listener.tls.cert-file=" + certFile + " (" + chain.get(0).getSubjectX500Principal().getName()
                    + "): the key signs what the certificate's public key cannot verify; use the key the certificate "
                    + "was issued for");
        }
        return new ServerCredentials(chain.toArray(new X509Certificate[0]), key);
    }

    /** The certificates of a PEM (or DER) file; at least one. */
    public static List<X509Certificate> certificates(String key, Path file) {
        try (InputStream in = open(key, file)) {
            List<X509Certificate> out = new ArrayList<>();
            CertificateFactory.getInstance("X.509").generateCertificates(in)
                    .forEach(c -> out.add((X509Certificate) c));
            if (out.isEmpty()) {
                throw new IllegalStateException(key + "=" + file + ": no certificate in the file (expected PEM "
                        + "-----BEGIN CERTIFICATE----- blocks)");
            }
            return out;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(key + "=" + file + ": not a readable certificate file: " + e.getMessage(), e);
        }
    }

    /** The CRLs of a PEM or DER file (possibly none). */
    public static List<X509CRL> crls(String key, Path file) {
        try (InputStream in = open(key, file)) {
            List<X509CRL> out = new ArrayList<>();
            CertificateFactory.getInstance("X.509").generateCRLs(in).forEach(c -> out.add((X509CRL) c));
            return out;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(key + "=" + file + ": not a readable CRL file: " + e.getMessage(), e);
        }
    }

    /** The first private key of a PEM file, in PKCS#8, SEC1 or PKCS#1 form. */
    public static PrivateKey privateKey(String key, Path file) {
        try (InputStream readable = open(key, file)) {
            // only to name an unreadable file the same way as the others
        } catch (IOException e) {
            throw new IllegalStateException(key + "=" + file + ": cannot read: " + e, e);
        }
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
             PEMParser pem = new PEMParser(reader)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            // openssl writes "EC PARAMETERS" before a SEC1 key; anything that is not a key is skipped
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new IllegalStateException(key + "=" + file + ": the private key is encrypted; the gateway "
                            + "reads unencrypted keys only (decrypt it with openssl pkey)");
                }
            }
            throw new IllegalStateException(key + "=" + file + ": no private key in the file (expected PEM PRIVATE "
                    + "KEY, EC PRIVATE KEY or RSA PRIVATE KEY)");
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
