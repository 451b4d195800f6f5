package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What RFC 5280 forbids a conforming CA to put in an end-entity certificate, as a device with a certificate from a
 * careless (or compromised) issuing process would present it: a certificate that may sign certificates or CRLs but is
 * no CA, name constraints outside a CA, a serial that is zero or over 20 octets; and validity compared in the whole
 * seconds an X.509 time names. Each against the lean verifier's DER fast path, its parsed path, and PKIX.
 */
class EndEntityProfileTest {
    private static final String NAME_CONSTRAINTS = "2.5.29.30";

    @TempDir
    Path dir;

    private TestPki pki;

    private TestPki pki() {
        if (pki == null) {
            pki = TestPki.create(dir.resolve("pki"));
        }
        return pki;
    }

    private DeviceCertificateVerifier verifier(String kind) throws Exception {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        return switch (kind) {
            case "pkix" -> new PkixVerifier(cas, policy);
            case "lean-parsed" -> new LeanVerifier(cas, policy, 1000, false);
            default -> new LeanVerifier(cas, policy, 1000);
        };
    }

    private CertificateBuilder device(String cn) {
        return pki().certificateBuilder().subject("CN=" + cn).addExtendedKeyUsageClientAuth()
                .notBefore(Instant.now().minus(1, ChronoUnit.HOURS)).notAfter(Instant.now().plus(1, ChronoUnit.DAYS));
    }

    private void assertRefused(String kind, X509Bundle device, TlsFailureReason reason) throws Exception {
        DeviceCertificateVerifier verifier = verifier(kind);
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {device.getCertificate()}, System.currentTimeMillis()));
        assertEquals(reason, TlsFailureReason.classify(e), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesDeviceCertificateThatMaySignCertificatesButIsNoCa(String kind) throws Exception {
        X509Bundle signer = device("cert-signer").setKeyUsage(true, KeyUsage.digitalSignature, KeyUsage.keyCertSign)
                .buildIssuedBy(pki().ca());
        assertRefused(kind, signer, TlsFailureReason.CERTIFICATE_REJECTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesDeviceCertificateThatMaySignCrlsButIsNoCa(String kind) throws Exception {
        X509Bundle signer = device("crl-signer").setKeyUsage(false, KeyUsage.digitalSignature, KeyUsage.cRLSign)
                .buildIssuedBy(pki().ca());
        assertRefused(kind, signer, TlsFailureReason.CERTIFICATE_REJECTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesNameConstraintsInADeviceCertificate(String kind) throws Exception {
        byte[] constraints = new NameConstraints(new GeneralSubtree[] {
            new GeneralSubtree(new GeneralName(GeneralName.dNSName, "plant-a.example"))}, null).getEncoded();
        for (boolean critical : new boolean[] {false, true}) {
            X509Bundle constrained = device("constrained-" + critical)
                    .addExtensionOctetString(NAME_CONSTRAINTS, critical, constraints).buildIssuedBy(pki().ca());
            assertRefused(kind, constrained, TlsFailureReason.CERTIFICATE_REJECTED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesSerialNumberZeroOrLongerThanTwentyOctets(String kind) throws Exception {
        assertRefused(kind, device("serial-zero").serial(BigInteger.ZERO).buildIssuedBy(pki().ca()),
                TlsFailureReason.MALFORMED_CERTIFICATE);
        assertRefused(kind, device("serial-21").serial(BigInteger.ONE.shiftLeft(160)).buildIssuedBy(pki().ca()),
                TlsFailureReason.MALFORMED_CERTIFICATE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void acceptsSerialNumberOfTwentyOctetsWithTheHighBitSet(String kind) throws Exception {
        // 20 octets of value: DER needs a 21st, the sign byte, and RFC 5280 counts the value
        X509Certificate twenty = device("serial-20").serial(BigInteger.ONE.shiftLeft(160).subtract(BigInteger.ONE))
                .buildIssuedBy(pki().ca()).getCertificate();
        DeviceCertificateVerifier verifier = verifier(kind);
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {twenty}, System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void comparesValidityInTheWholeSecondsTheCertificateNames(String kind) throws Exception {
        Instant notBefore = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(1, ChronoUnit.HOURS);
        Instant notAfter = notBefore.plus(2, ChronoUnit.HOURS);
        X509Certificate device = pki().certificateBuilder().subject("CN=seconds").addExtendedKeyUsageClientAuth()
                .notBefore(notBefore).notAfter(notAfter).buildIssuedBy(pki().ca()).getCertificate();
        X509Certificate[] chain = {device};
        // notAfter 12:00:00Z names the whole second 12:00:00, its last millisecond included
        assertDoesNotThrow(() -> verifier(kind).verify(chain, notAfter.toEpochMilli() + 999));
        assertThrows(CertificateException.class, () -> verifier(kind).verify(chain, notAfter.toEpochMilli() + 1000));
        // and notBefore is not reached before its second begins
        assertThrows(CertificateException.class, () -> verifier(kind).verify(chain, notBefore.toEpochMilli() - 1));
        assertDoesNotThrow(() -> verifier(kind).verify(chain, notBefore.toEpochMilli()));
        // a remembered certificate (lean's cache) by the same rule
        DeviceCertificateVerifier remembering = verifier(kind);
        remembering.verify(chain, notAfter.toEpochMilli() - 60_000);
        assertDoesNotThrow(() -> remembering.verify(chain, notAfter.toEpochMilli() + 999));
        assertThrows(CertificateException.class, () -> remembering.verify(chain, notAfter.toEpochMilli() + 1000));
    }
}
