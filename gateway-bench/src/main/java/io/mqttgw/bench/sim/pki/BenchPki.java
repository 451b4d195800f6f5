package io.mqttgw.bench.sim.pki;

import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.core.tls.TlsFiles;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench CA in a directory: {@code ca.pem}/{@code ca.key}, a server certificate for 127.0.0.1 and localhost
 * ({@code server.pem}/{@code server.key}, to configure the gateway with) and device certificates under
 * {@code devices/<cn>.pem} (certificate and key in one file), generated on first use and reused afterwards.
 * Several worker processes may share a directory as long as they ask for disjoint device names. RSA device
 * certificates reuse a few key pairs (an RSA key takes ~100 ms to generate; each certificate is still distinct).
 * Thread-safe.
 */
public final class BenchPki {
    private static final int RSA_KEY_POOL = 8;

    private final Path dir;
    private final KeyAlgorithm algorithm;
    private final X509Bundle ca;
    private final List<KeyPair> rsaKeys = new ArrayList<>();

    private BenchPki(Path dir, KeyAlgorithm algorithm, X509Bundle ca) {
        this.dir = dir;
        this.algorithm = algorithm;
        this.ca = ca;
    }

    /** Opens the PKI in {@code dir}, creating the CA and server certificate with {@code algorithm} if missing. */
    public static synchronized BenchPki open(Path dir, KeyAlgorithm algorithm) {
        try {
            Files.createDirectories(dir.resolve("devices"));
            Path marker = dir.resolve("algorithm");
            if (Files.exists(dir.resolve("ca.key"))) {
                KeyAlgorithm existing = KeyAlgorithm.valueOf(Files.readString(marker).trim());
                if (existing != algorithm) {
                    throw new IllegalArgumentException("PKI directory " + dir + " holds a " + existing.name()
                            + " CA but " + algorithm.name() + " was asked for; use another --pki-dir");
                }
                X509Certificate cert = TlsFiles.certificates("--pki-dir", dir.resolve("ca.pem")).get(0);
                KeyPair keys = new KeyPair(cert.getPublicKey(),
                        TlsFiles.privateKey("--pki-dir", dir.resolve("ca.key")));
                return new BenchPki(dir, algorithm, X509Bundle.fromRootCertificateAuthority(cert, keys));
            }
            Instant now = Instant.now();
            X509Bundle ca = keyType(new CertificateBuilder(), algorithm).subject("CN=mqttgw bench CA")
                    .setIsCertificateAuthority(true).notBefore(now.minus(1, ChronoUnit.DAYS))
                    .notAfter(now.plus(3650, ChronoUnit.DAYS)).buildSelfSigned();
            X509Bundle server = keyType(new CertificateBuilder(), algorithm).subject("CN=localhost")
                    .addSanDnsName("localhost").addSanIpAddress("127.0.0.1").addExtendedKeyUsageServerAuth()
                    .notBefore(now.minus(1, ChronoUnit.DAYS)).notAfter(now.plus(3650, ChronoUnit.DAYS))
                    .buildIssuedBy(ca);
            writeAtomically(dir.resolve("server.pem"), server.getCertificatePEM());
            writeAtomically(dir.resolve("server.key"), server.getPrivateKeyPEM());
            writeAtomically(dir.resolve("ca.pem"), ca.getCertificatePEM());
            writeAtomically(marker, algorithm.name() + "\n");
            writeAtomically(dir.resolve("ca.key"), ca.getPrivateKeyPEM());
            return new BenchPki(dir, algorithm, ca);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use PKI directory " + dir, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the bench PKI in " + dir, e);
        }
    }

    private static CertificateBuilder keyType(CertificateBuilder b, KeyAlgorithm algorithm) {
        return algorithm == KeyAlgorithm.EC ? b.ecp256() : b.rsa2048();
    }

    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    public Path serverCertFile() {
        return dir.resolve("server.pem");
    }

    public Path serverKeyFile() {
        return dir.resolve("server.key");
    }

    public KeyAlgorithm algorithm() {
        return algorithm;
    }

    /** The credential for {@code cn}: read from the cache directory, or issued now and cached. */
    public DeviceCredential device(String cn) {
        Path file = dir.resolve("devices").resolve(cn + ".pem");
        try {
            if (Files.exists(file)) {
                TlsFiles.PemContents pem = TlsFiles.pem("--pki-dir", file);
                if (pem.certificates().size() == 1 && pem.privateKey() != null) {
                    return new DeviceCredential(pem.certificates().get(0).getEncoded(),
                            pem.privateKey().getEncoded());
                }
            }
            Instant now = Instant.now();
            CertificateBuilder b = new CertificateBuilder().subject("CN=" + cn).addExtendedKeyUsageClientAuth()
                    .notBefore(now.minus(1, ChronoUnit.DAYS)).notAfter(now.plus(3650, ChronoUnit.DAYS));
            b = algorithm == KeyAlgorithm.EC ? b.ecp256() : b.keyPair(rsaKey(cn));
            X509Bundle device = b.buildIssuedBy(ca);
            writeAtomically(file, device.getCertificatePEM() + device.getPrivateKeyPEM());
            return new DeviceCredential(device.getCertificate().getEncoded(),
                    device.getKeyPair().getPrivate().getEncoded());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot issue a certificate for " + cn, e);
        }
    }

    private KeyPair rsaKey(String cn) throws NoSuchAlgorithmException {
        synchronized (rsaKeys) {
            if (rsaKeys.size() < RSA_KEY_POOL) {
                KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
                g.initialize(2048);
                rsaKeys.add(g.generateKeyPair());
                return rsaKeys.get(rsaKeys.size() - 1);
            }
            return rsaKeys.get(Math.floorMod(cn.hashCode(), RSA_KEY_POOL));
        }
    }

    private static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp" + ProcessHandle.current().pid());
        Files.writeString(tmp, text);
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
