package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.CertificateForge.Issued;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the gateway trusts, over real TLS sockets: a certificate of {@code listener.tls.ca-file} that may not vouch
 * for devices stops the node from starting (and a reload from taking it), the name constraints of a configured root
 * bind its devices (a wildcard or malformed name under them refused and counted), a device certificate outside RFC
 * 5280's end-entity profile is refused and counted, and a device key under the floor is refused and counted
 * {@code weak_key}, on both verifiers.
 */
class TrustFloorIT {
    @TempDir
    Path dir;

    private static SSLContext presenting(TestPki pki, Issued device, Issued issuer) throws Exception {
        return pki.clientContext(X509Bundle.fromCertificatePath(new X509Certificate[] {device.certificate()},
                issuer.certificate(), device.key()));
    }

    private static Issued testCa(TestPki pki) {
        return new Issued(pki.ca().getCertificate(), pki.ca().getKeyPair());
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }

    @Test
    void aCaFileHoldingALeafStopsStartupAndIsNotTakenOnReload() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle good = pki.device("dev-good");
        String leaf = CertificateForge.pem(good.getCertificate());
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + leaf);
        Exception e = assertThrows(Exception.class, () -> TestGateway.tls(pki, dir).start().close());
        String text = messages(e);
        assertTrue(text.contains("listener.tls.ca-file=" + pki.caFile()) && text.contains("CN=dev-good")
                && text.contains("is not a CA"), text);

        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM());
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            CertificateRevocationIT.connects(pki.clientContext(good), gateway.tlsPort(), "dev-good");
            Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + leaf);
            assertFalse(gateway.reloadTls(), "a CA file with a leaf is not put in place");
            CertificateRevocationIT.connects(pki.clientContext(good), gateway.tlsPort(), "dev-good");
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void theNameConstraintsOfAConfiguredRootBindItsDevices(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Issued root = CertificateForge.ca("CN=Fleet A Root", CertificateForge.keys("p256"), b -> {
            CertificateForge.caExtensions(b);
            b.addExtension(Extension.nameConstraints, true, new NameConstraints(new GeneralSubtree[] {
                new GeneralSubtree(new GeneralName(new X500Name("O=Fleet A")))}, null));
        });
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + root.certificatePem());
        Issued inside = CertificateForge.device("O=Fleet A,CN=dev-in", CertificateForge.keys("p256"), root, null);
        Issued outside = CertificateForge.device("O=Fleet B,CN=dev-out", CertificateForge.keys("p256"), root, null);
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier).start()) {
            CertificateRevocationIT.refused(presenting(pki, outside, root), gateway.tlsPort(), "dev-out");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.CERTIFICATE_REJECTED, 1);
            // twice: the lean verifier must not remember a constrained chain and skip the constraints next time
            CertificateRevocationIT.connects(presenting(pki, inside, root), gateway.tlsPort(), "dev-in");
            CertificateRevocationIT.connects(presenting(pki, inside, root), gateway.tlsPort(), "dev-in");
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void aWildcardOrMalformedNameUnderNameConstraintsIsRefusedAndCounted(String verifier) throws Exception {
        // the JDK's matching took both: *.fleet.example also names the excluded bar.fleet.example
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Issued root = CertificateForge.ca("CN=Fleet Root", CertificateForge.keys("p256"), b -> {
            CertificateForge.caExtensions(b);
            b.addExtension(Extension.nameConstraints, true, new NameConstraints(null, new GeneralSubtree[] {
                new GeneralSubtree(new GeneralName(GeneralName.dNSName, "bar.fleet.example"))}));
        });
        Files.writeString(pki.caFile(), pki.ca().getCertificatePEM() + root.certificatePem());
        Issued wildcard = device("CN=dev-wild", "*.fleet.example", root);
        Issued malformed = device("CN=dev-dot", ".fleet.example", root);
        Issued fine = device("CN=dev-foo", "foo.fleet.example", root);
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier).start()) {
            CertificateRevocationIT.refused(presenting(pki, wildcard, root), gateway.tlsPort(), "dev-wild");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.CERTIFICATE_REJECTED, 1);
            CertificateRevocationIT.refused(presenting(pki, malformed, root), gateway.tlsPort(), "dev-dot");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.MALFORMED_CERTIFICATE, 1);
            CertificateRevocationIT.connects(presenting(pki, fine, root), gateway.tlsPort(), "dev-foo");
        }
    }

    private static Issued device(String subject, String dns, Issued issuer) {
        return CertificateForge.device(subject, CertificateForge.keys("p256"), issuer,
                b -> b.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(new GeneralName(GeneralName.dNSName, dns))));
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void aDeviceCertificateOutsideTheEndEntityProfileIsRefusedAndCounted(String verifier) throws Exception {
        // a careless (or subverted) issuing process: powers only a CA may have, a serial RFC 5280 forbids
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Issued ca = testCa(pki);
        Issued certSigner = CertificateForge.device("CN=dev-signer", CertificateForge.keys("p256"), ca,
                b -> b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature
                        | KeyUsage.keyCertSign)));
        Issued constrains = CertificateForge.device("CN=dev-nc", CertificateForge.keys("p256"), ca,
                b -> b.addExtension(Extension.nameConstraints, false, new NameConstraints(new GeneralSubtree[] {
                    new GeneralSubtree(new GeneralName(GeneralName.dNSName, "devices.example"))}, null)));
        X509Bundle serialZero = pki.certificateBuilder().subject("CN=dev-zero").addExtendedKeyUsageClientAuth()
                .serial(BigInteger.ZERO).notBefore(Instant.now().minusSeconds(3600))
                .notAfter(Instant.now().plusSeconds(86_400)).buildIssuedBy(pki.ca());
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier).start()) {
            CertificateRevocationIT.refused(presenting(pki, certSigner, ca), gateway.tlsPort(), "dev-signer");
            CertificateRevocationIT.refused(presenting(pki, constrains, ca), gateway.tlsPort(), "dev-nc");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.CERTIFICATE_REJECTED, 2);
            CertificateRevocationIT.refused(pki.clientContext(serialZero), gateway.tlsPort(), "dev-zero");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.MALFORMED_CERTIFICATE, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-fine")), gateway.tlsPort(),
                    "dev-fine");
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void aDeviceWithAnRsa1024KeyIsRefusedAndCountedAsWeakKey(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Issued ca = testCa(pki);
        Issued weak = CertificateForge.device("CN=dev-weak", CertificateForge.keys("rsa1024"), ca, null);
        Issued strong = CertificateForge.device("CN=dev-rsa", CertificateForge.keys("rsa2048"), ca, null);
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier).start()) {
            String alert = TlsFrontDoorIT.alertReceived(presenting(pki, weak, ca), gateway.tlsPort());
            TlsFrontDoorIT.assertAlert("bad_certificate", alert, "openssl");
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.WEAK_KEY, 1);
            CertificateRevocationIT.connects(presenting(pki, strong, ca), gateway.tlsPort(), "dev-rsa");
        }
    }
}
