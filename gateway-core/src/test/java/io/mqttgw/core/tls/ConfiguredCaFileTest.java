package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A certificate of {@code listener.tls.ca-file} vouches for every device it signed, so the file may hold only
 * certificates that RFC 5280 lets sign certificates, with keys above the floor: anything else is a configuration error
 * at startup and on reload (the working context stays), naming the key, the certificate and the fix.
 */
class ConfiguredCaFileTest {
    @TempDir
    Path dir;

    private static CertificateForge.Issued ca(String kind) {
        String subject = "CN=Bad CA " + kind;
        return switch (kind) {
            case "not-a-ca" -> CertificateForge.ca(subject, CertificateForge.keys("p256"), b -> { });
            case "ca-false" -> CertificateForge.ca(subject, CertificateForge.keys("p256"),
                    b -> b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false)));
            case "bc-non-critical" -> CertificateForge.ca(subject, CertificateForge.keys("p256"),
                    b -> b.addExtension(Extension.basicConstraints, false, new BasicConstraints(true)));
            case "no-keycertsign" -> CertificateForge.ca(subject, CertificateForge.keys("p256"), b -> {
                b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.cRLSign));
            });
            case "unknown-critical" -> CertificateForge.ca(subject, CertificateForge.keys("p256"), b -> {
                CertificateForge.caExtensions(b);
                b.addExtension(new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.3.6.1.4.1.55738.666.1"), true,
                        new DERSequence());
            });
            case "nc-non-critical" -> CertificateForge.ca(subject, CertificateForge.keys("p256"), b -> {
                CertificateForge.caExtensions(b);
                b.addExtension(Extension.nameConstraints, false, new NameConstraints(new GeneralSubtree[] {
                    new GeneralSubtree(new GeneralName(GeneralName.dNSName, "devices.example"))}, null));
            });
            default -> CertificateForge.ca(subject, CertificateForge.keys(kind), null);
        };
    }

    private SslContextStore store(TestPki pki) {
        return new SslContextStore(TestGateway.tls(pki, dir).config().tls(), new CertificateIdentities("cn"),
                new GatewayMetrics(new SimpleMeterRegistry()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"not-a-ca", "ca-false", "bc-non-critical", "no-keycertsign", "unknown-critical", "rsa1024",
        "dsa", "p192", "secp256k1", "nc-non-critical"})
    void refusesACaFileCertificateThatMayNotVouchForDevicesAtStartup(String kind) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        CertificateForge.Issued bad = ca(kind);
        // after the good CA: every certificate of the file is checked, not the first
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + bad.certificatePem());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store(pki));
        String message = e.getMessage();
        assertTrue(message.contains("listener.tls.ca-file=" + pki.caFile()), message);
        assertTrue(message.contains("CN=Bad CA " + kind), message);
        assertTrue(message.contains(switch (kind) {
            case "not-a-ca", "ca-false" -> "cA=true";
            case "bc-non-critical" -> "non-critical";
            case "no-keycertsign" -> "keyCertSign";
            case "unknown-critical" -> "1.3.6.1.4.1.55738.666.1";
            case "nc-non-critical" -> "name constraints non-critical";
            default -> "stronger key";
        }), message);
    }

    @Test
    void refusesACaFileCertificateWithSerialZeroAtStartup() throws Exception {
        // the serial a CRL names a certificate by: RFC 5280 4.1.2.2 requires a positive one of every conforming CA
        TestPki pki = TestPki.create(dir.resolve("pki"));
        String zero = pki.certificateBuilder().subject("CN=Bad CA serial-zero").setIsCertificateAuthority(true)
                .serial(java.math.BigInteger.ZERO).notBefore(java.time.Instant.now().minusSeconds(3600))
                .notAfter(java.time.Instant.now().plusSeconds(86_400)).buildSelfSigned().getCertificatePEM();
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + zero);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store(pki));
        assertTrue(e.getMessage().contains("CN=Bad CA serial-zero") && e.getMessage().contains("serial number zero"),
                e.getMessage());
    }

    @Test
    void refusesAConfiguredIntermediateWithNameConstraintsNoVerifierCouldApply() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        CertificateForge.Issued root = CertificateForge.ca("CN=Root", CertificateForge.keys("p256"), null);
        CertificateForge.Issued constrained = CertificateForge.intermediate("CN=Constrained Issuing CA",
                CertificateForge.keys("p256"), root, b -> b.addExtension(Extension.nameConstraints, true,
                        new NameConstraints(new GeneralSubtree[] {
                            new GeneralSubtree(new GeneralName(GeneralName.dNSName, "devices.example"))}, null)));
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + constrained.certificatePem());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store(pki));
        assertTrue(e.getMessage().contains("CN=Constrained Issuing CA"), e.getMessage());
        assertTrue(e.getMessage().contains("not self-signed"), e.getMessage());
    }

    @Test
    void keepsTheWorkingContextWhenAReloadedCaFileHoldsALeaf() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        SslContextStore store = store(pki);
        SslContext before = store.current();
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + ca("not-a-ca").certificatePem());
        assertFalse(store.reloadIfChanged());
        assertSame(before, store.current());
        store.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"p256", "p384", "rsa2048"})
    void acceptsCasOfEveryAllowedKeyWithNameConstraintsAndUsage(String key) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        CertificateForge.Issued good = CertificateForge.ca("CN=Good CA", CertificateForge.keys(key), b -> {
            CertificateForge.caExtensions(b);
            b.addExtension(Extension.nameConstraints, true, new NameConstraints(new GeneralSubtree[] {
                new GeneralSubtree(new GeneralName(GeneralName.dNSName, "devices.example"))}, null));
        });
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + good.certificatePem());
        assertDoesNotThrow(() -> store(pki).close());
    }
}
