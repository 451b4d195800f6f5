package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link CertificateDer} must never disagree with the parsed reading ({@link CertificateIdentities} over the JDK's
 * subject, the parsed notAfter): where it answers, the answer is the parsed path's; where it cannot read the
 * certificate it answers null, so the caller falls back to the JDK.
 */
class CertificateDerTest {
    private static X509Bundle ca;

    @BeforeAll
    static void ca() throws Exception {
        ca = new CertificateBuilder().ecp256().subject("CN=Device CA, O=Acme").setIsCertificateAuthority(true)
                .notBefore(Instant.now().minus(1, ChronoUnit.DAYS)).notAfter(Instant.now().plus(9000, ChronoUnit.DAYS))
                .buildSelfSigned();
    }

    private static X509Certificate issued(String subject, Instant notAfter) throws Exception {
        return new CertificateBuilder().ecp256().subject(subject).addExtendedKeyUsageClientAuth()
                .notBefore(notAfter.minus(1, ChronoUnit.DAYS)).notAfter(notAfter).buildIssuedBy(ca)
                .getCertificate();
    }

    @Test
    void encodesOidsAsTheirDerContentLikeBouncyCastle() throws Exception {
        for (String oid : List.of("2.5.29.15", "2.5.29.17", "2.5.29.19", "2.5.29.37", "1.3.6.1.5.5.7.3.2",
                "1.2.840.10045.4.3.2", "2.999.1", "0.0")) {
            byte[] expected = new org.bouncycastle.asn1.ASN1ObjectIdentifier(oid).getEncoded();
            assertEquals(Arrays.toString(Arrays.copyOfRange(expected, 2, expected.length)),
                    Arrays.toString(CertificateDer.oidContent(oid)), oid);
        }
    }

    @Test
    void readsTheCommonShapeExactlyAsTheJdkDoes() throws Exception {
        List<String> subjects = List.of("CN=dev-1", "CN=again-12345", "CN=dev-7, OU=Fleet, O=Acme, C=DE",
                "O=Acme, CN=dev-last", "CN=Device_0001.sensor:eu@plant",
                "CN=" + "d".repeat(64));
        // UTCTime up to 2049 (and back to 1950), GeneralizedTime from 2050 on
        List<Instant> expiries = List.of(Instant.parse("1999-12-31T23:59:59Z"),Instant.now().plus(1,
                ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS),
                Instant.parse("2049-12-31T23:59:59Z"), Instant.parse("2050-01-01T00:00:00Z"),
                Instant.parse("2099-06-30T12:34:56Z"));
        for (String subject : subjects) {
            for (Instant notAfter : expiries) {
                X509Certificate certificate = issued(subject, notAfter);
                CertificateDer.Facts facts = CertificateDer.read(certificate.getEncoded());
                assertNotNull(facts, subject + " is of the common shape");
                assertEquals(CertificateIdentities.commonName(certificate), facts.commonName(), subject);
                assertEquals(certificate.getNotAfter().getTime(), facts.notAfterMillis(), subject + " " + notAfter);
            }
        }
    }

    @Test
    void readsEscapedSeparatedAndMultiValuedNamesAsTheParsedPathDoes() throws Exception {
        // escapes, separators, spaces, non-ASCII, a CN of "+", a multi-valued RDN: the fast path reads them too, with
        // the same reading (IdentityDer); CertificateIdentitiesTest covers every string type and refusal
        for (String subject : List.of("CN=dev\\,1, O=Acme", "CN=dev\\+1", "CN=\\+", "CN=dev 1", "CN=ger\u00e4t-1",
                "CN=dev-9+SERIALNUMBER=0009, O=Acme", "CN=dev-9+SERIALNUMBER=000000009, O=Acme", "CN=\\#dev",
                "CN=dev/1", "CN=dev=1")) {
            X509Certificate certificate = issued(subject, Instant.now().plus(1, ChronoUnit.DAYS));
            CertificateDer.Facts facts = CertificateDer.read(certificate.getEncoded());
            assertNotNull(facts, subject);
            assertEquals(CertificateIdentities.commonName(certificate), facts.commonName(), subject);
        }
    }

    @Test
    void leavesASubjectWithoutCommonNameToTheJdk() throws Exception {
        X509Certificate certificate = issued("O=Acme, C=DE", Instant.now().plus(1, ChronoUnit.DAYS));
        assertNull(CertificateDer.read(certificate.getEncoded()));
    }

    @Test
    void answersNullForAnythingThatIsNotACertificate() throws Exception {
        byte[] der = issued("CN=dev-1", Instant.now().plus(1, ChronoUnit.DAYS)).getEncoded();
        for (int length = 0; length < der.length; length += 7) {
            assertNull(CertificateDer.read(Arrays.copyOf(der, length)), "truncated to " + length);
        }
        byte[] garbage = der.clone();
        garbage[0] = 0x31;
        assertNull(CertificateDer.read(garbage));
        assertNull(CertificateDer.read(new byte[] {0x30, (byte) 0x84, 0x7f, 0x7f, 0x7f, 0x7f}));
    }
}
