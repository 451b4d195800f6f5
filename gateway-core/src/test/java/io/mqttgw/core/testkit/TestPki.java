package io.mqttgw.core.testkit;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.function.Consumer;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import java.time.temporal.ChronoUnit;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A PKI made for one test run: a device CA, a server certificate for 127.0.0.1 / localhost, device certificates on
 * demand, and a second CA nobody trusts. PEM files are written to a directory for the gateway to load.
 */
public final class TestPki {
    private static final Instant NOW = Instant.now();

    private final Path dir;
    private final boolean rsa;
    private final X509Bundle ca;
    private final X509Bundle otherCa;

    private TestPki(Path dir, boolean rsa) throws Exception {
        this.dir = dir;
        this.rsa = rsa;
        this.ca = authority("CN=Test Device CA");
        this.otherCa = authority("CN=Untrusted CA");
        writeServer("CN=localhost");
        Files.writeString(caFile(), ca.getCertificatePEM());
    }

    /** Every key ECDSA P-256. */
    public static TestPki create(Path dir) {
        return create(dir, false);
    }

    /** Every key RSA 2048. */
    public static TestPki createRsa(Path dir) {
        return create(dir, true);
    }

    private static TestPki create(Path dir, boolean rsa) {
        try {
            Files.createDirectories(dir);
            return new TestPki(dir, rsa);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the test PKI", e);
        }
    }

    private CertificateBuilder builder() {
        CertificateBuilder b = new CertificateBuilder();
        return rsa ? b.rsa2048() : b.ecp256();
    }

    private X509Bundle authority(String subject) throws Exception {
        return builder().subject(subject).setIsCertificateAuthority(true)
                .notBefore(NOW.minus(1, ChronoUnit.DAYS)).notAfter(NOW.plus(30, ChronoUnit.DAYS))
                .buildSelfSigned();
    }

    /**
     * (Re)writes the server certificate and key, issued by the device CA, with {@code subject}; valid for 90 days,
     * beyond the gateway's 30-day expiry warning.
     */
    public X509Bundle writeServer(String subject) {
        return writeServer(subject, NOW.minus(1, ChronoUnit.DAYS), NOW.plus(90, ChronoUnit.DAYS));
    }

    /** (Re)writes the server certificate and key with the given validity (an expired or nearly expired one). */
    public X509Bundle writeServer(String subject, Instant notBefore, Instant notAfter) {
        try {
            X509Bundle server = builder().subject(subject)
                    .addSanDnsName("localhost").addSanIpAddress("127.0.0.1").addExtendedKeyUsageServerAuth()
                    .notBefore(notBefore).notAfter(notAfter)
                    .buildIssuedBy(ca);
            // write to temporary files and move, so a reload never reads a half-written pair
            Path cert = Files.writeString(dir.resolve("server.pem.tmp"), server.getCertificatePEM());
            Path key = Files.writeString(dir.resolve("server.key.tmp"), server.getPrivateKeyPEM());
            Files.move(key, keyFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.move(cert, certFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return server;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public Path certFile() {
        return dir.resolve("server.pem");
    }

    public Path keyFile() {
        return dir.resolve("server.key");
    }

    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    public X509Bundle ca() {
        return ca;
    }

    /** A device certificate with {@code CN=<cn>}, valid now. */
    public X509Bundle device(String cn) {
        return device(cn, NOW.minus(1, ChronoUnit.HOURS), NOW.plus(1, ChronoUnit.DAYS), ca);
    }

    /** A device certificate that expired yesterday. */
    public X509Bundle expiredDevice(String cn) {
        return device(cn, NOW.minus(10, ChronoUnit.DAYS), NOW.minus(1, ChronoUnit.DAYS), ca);
    }

    /** A device certificate from a CA the gateway does not trust. */
    public X509Bundle untrustedDevice(String cn) {
        return device(cn, NOW.minus(1, ChronoUnit.HOURS), NOW.plus(1, ChronoUnit.DAYS), otherCa);
    }

    /** A device certificate signed by the device CA with SHA-1 ({@code SHA1withECDSA} or {@code SHA1withRSA}). */
    public X509Bundle sha1Device(String cn) {
        try {
            // netty-pkitesting signs with SHA-256 or better only; BouncyCastle makes the SHA-1 certificate
            java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance(rsa ? "RSA" : "EC");
            generator.initialize(rsa ? 2048 : 256);
            java.security.KeyPair keys = generator.generateKeyPair();
            X509Certificate issuer = ca.getCertificate();
            var builder = new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(issuer,
                    java.math.BigInteger.valueOf(System.nanoTime()), Date.from(NOW.minus(1, ChronoUnit.HOURS)),
                    Date.from(NOW.plus(1, ChronoUnit.DAYS)), new javax.security.auth.x500.X500Principal("CN=" + cn),
                    keys.getPublic());
            builder.addExtension(org.bouncycastle.asn1.x509.Extension.extendedKeyUsage, false,
                    new org.bouncycastle.asn1.x509.ExtendedKeyUsage(
                            org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_clientAuth));
            ContentSigner signer = new JcaContentSignerBuilder(rsa ? "SHA1withRSA" : "SHA1withECDSA")
                    .build(ca.getKeyPair().getPrivate());
            X509Certificate certificate = new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
                    .getCertificate(builder.build(signer));
            return X509Bundle.fromCertificatePath(new X509Certificate[] {certificate}, issuer, keys);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh certificate builder with this PKI's key type, for tests that need unusual certificates. */
    public CertificateBuilder certificateBuilder() {
        return builder();
    }

    /** The CA nobody trusts. */
    public X509Bundle otherCa() {
        return otherCa;
    }

    /** A device certificate with the given SAN URI and DNS name besides {@code CN=<cn>}. */
    public X509Bundle deviceWithSans(String cn, String uri, String dns) {
        try {
            return builder().subject("CN=" + cn).addSanUriName(uri).addSanDnsName(dns)
                    .addExtendedKeyUsageClientAuth().notBefore(NOW.minus(1, ChronoUnit.HOURS))
                    .notAfter(NOW.plus(1, ChronoUnit.DAYS)).buildIssuedBy(ca);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private X509Bundle device(String cn, Instant from, Instant to, X509Bundle issuer) {
        try {
            return builder().subject("CN=" + cn).addExtendedKeyUsageClientAuth()
                    .notBefore(from).notAfter(to).buildIssuedBy(issuer);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Trust in the device CA (which also issued the server certificate). */
    public TrustManagerFactory trust() {
        return ca.toTrustManagerFactory();
    }

    public static KeyManagerFactory keys(X509Bundle device) {
        try {
            return device.toKeyManagerFactory();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A JDK client context presenting {@code device} (or no certificate when null) and trusting the test CA. The
     * certificate is presented even when its issuer is not among the CAs the server asks for, as a misconfigured or
     * hostile device would, so the server's own verification is what is tested.
     */
    public SSLContext clientContext(X509Bundle device) {
        return clientContext(device, issuers -> { });
    }

    /** As {@link #clientContext(X509Bundle)}, telling {@code issuersNamed} the CA names of each CertificateRequest. */
    public SSLContext clientContext(X509Bundle device, Consumer<Principal[]> issuersNamed) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            KeyManager[] keyManagers = null;
            if (device != null) {
                X509KeyManager delegate = (X509KeyManager) keys(device).getKeyManagers()[0];
                keyManagers = new KeyManager[] {new AlwaysPresent(delegate, issuersNamed)};
            }
            context.init(keyManagers, trust().getTrustManagers(), null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Presents its one certificate whatever issuers the server names (and tells who asks which it named). */
    private static final class AlwaysPresent extends X509ExtendedKeyManager {
        private final X509KeyManager delegate;
        private final Consumer<Principal[]> issuersNamed;
        private final String alias;

        AlwaysPresent(X509KeyManager delegate, Consumer<Principal[]> issuersNamed) {
            this.delegate = delegate;
            this.issuersNamed = issuersNamed;
            String[] aliases = delegate.getClientAliases("EC", null);
            this.alias = aliases != null ? aliases[0] : delegate.getClientAliases("RSA", null)[0];
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {alias};
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            issuersNamed.accept(issuers == null ? new Principal[0] : issuers);
            return alias;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            issuersNamed.accept(issuers == null ? new Principal[0] : issuers);
            return alias;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String name) {
            return delegate.getCertificateChain(name);
        }

        @Override
        public PrivateKey getPrivateKey(String name) {
            return delegate.getPrivateKey(name);
        }
    }

    /**
     * Writes a CRL of the device CA listing {@code revoked} (none: an empty CRL), valid from an hour ago for a week.
     */
    public Path writeCrl(Path file, X509Bundle... revoked) {
        return crlOf(file, ca, revoked);
    }

    /** Writes a CRL of the device CA whose next-update was yesterday (a CRL nobody renewed). */
    public Path writeStaleCrl(Path file) {
        return crlOf(file, ca, NOW.minus(8, ChronoUnit.DAYS), NOW.minus(1, ChronoUnit.DAYS));
    }

    /** Writes a CRL of the untrusted CA only, so the device CA has no CRL in the file. */
    public Path writeForeignCrl(Path file) {
        return crlOf(file, otherCa);
    }

    private Path crlOf(Path file, X509Bundle issuer, X509Bundle... revoked) {
        return crlOf(file, issuer, NOW.minus(1, ChronoUnit.HOURS), NOW.plus(7, ChronoUnit.DAYS), revoked);
    }

    private Path crlOf(Path file, X509Bundle issuer, Instant thisUpdate, Instant nextUpdate, X509Bundle... revoked) {
        try {
            X509v2CRLBuilder crl = new X509v2CRLBuilder(
                    X500Name.getInstance(issuer.getCertificate().getSubjectX500Principal().getEncoded()),
                    Date.from(thisUpdate));
            crl.setNextUpdate(Date.from(nextUpdate));
            // RFC 5280 5.2.3: a CRL carries its number, or the gateway refuses the file
            crl.addExtension(org.bouncycastle.asn1.x509.Extension.cRLNumber, false,
                    new org.bouncycastle.asn1.x509.CRLNumber(java.math.BigInteger.valueOf(
                            thisUpdate.getEpochSecond())));
            for (X509Bundle r : revoked) {
                crl.addCRLEntry(r.getCertificate().getSerialNumber(), Date.from(NOW.minus(1, ChronoUnit.MINUTES)),
                        CRLReason.keyCompromise);
            }
            ContentSigner signer = new JcaContentSignerBuilder(rsa ? "SHA256withRSA" : "SHA256withECDSA")
                    .build(issuer.getKeyPair().getPrivate());
            String pem = "-----BEGIN X509 CRL-----\n"
                    + java.util.Base64.getMimeEncoder(64,
                            "\n".getBytes(StandardCharsets.UTF_8)).encodeToString(crl.build(signer).getEncoded())
                    + "\n-----END X509 CRL-----\n";
            Path tmp = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), pem);
            return Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write the CRL", e);
        }
    }

    /** Writes {@code device}'s certificate and key as PEM next to the server files; returns the certificate path. */
    public Path writeDevice(String name, X509Bundle device) {
        try {
            Files.writeString(dir.resolve(name + ".key"), device.getPrivateKeyPEM());
            return Files.writeString(dir.resolve(name + ".pem"), device.getCertificatePEM());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
