package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.CertificateBuilder;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateIdentitiesTest {
    @TempDir
    static Path dir;

    private static TestPki pki;
    private static X509Certificate withSans;
    private static X509Certificate plain;

    @BeforeAll
    static void pki() {
        pki = TestPki.create(dir);
        withSans = pki.deviceWithSans("dev-cn", "urn:device:42", "dev42.devices.example").getCertificate();
        plain = pki.device("dev-1").getCertificate();
    }

    private static X509Certificate withSubject(String subject) throws Exception {
        return new CertificateBuilder().subject(subject).ecp256().addExtendedKeyUsageClientAuth()
                .notBefore(Instant.now().minus(1, ChronoUnit.HOURS)).notAfter(Instant.now().plus(1, ChronoUnit.DAYS))
                .buildIssuedBy(pki.ca()).getCertificate();
    }

    @Test
    void readsTheCommonName() {
        assertEquals("dev-cn", new CertificateIdentities("cn").identityOf(withSans));
        assertEquals("dev-1", new CertificateIdentities("cn").identityOf(plain));
    }

    @Test
    void readsTheSanUri() {
        assertEquals("urn:device:42", new CertificateIdentities("san-uri").identityOf(withSans));
    }

    @Test
    void readsTheSanDnsName() {
        assertEquals("dev42.devices.example", new CertificateIdentities("san-dns").identityOf(withSans));
    }

    @Test
    void hasNoSanIdentityWithoutSans() {
        assertNull(new CertificateIdentities("san-uri").identityOf(plain));
        assertNull(new CertificateIdentities("san-dns").identityOf(plain));
    }

    @Test
    void takesTheMostSpecificCommonNameOfAMultiValuedSubject() throws Exception {
        X509Certificate cert = withSubject("CN=dev-7, OU=Fleet, O=Acme, C=DE");
        assertEquals("dev-7", new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void takesTheFirstCommonNameWhenThereAreSeveral() throws Exception {
        X509Certificate cert = withSubject("CN=dev-leaf, CN=fleet-group, O=Acme");
        assertEquals("dev-leaf", new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void unescapesTheCommonName() throws Exception {
        X509Certificate cert = withSubject("CN=dev\\,1, O=Acme");
        assertEquals("dev,1", new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void findsTheCommonNameInAMultiValuedRdn() throws Exception {
        // some fleets put the serial next to the CN in one RDN: CN=dev-9+serialNumber=0009
        X509Certificate cert = withSubject("CN=dev-9+SERIALNUMBER=0009, O=Acme");
        assertEquals("dev-9", new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void hasNoCommonNameIdentityWithoutCn() throws Exception {
        X509Certificate cert = withSubject("O=Acme, C=DE");
        assertNull(new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void rejectsAnUnknownSource() {
        assertThrows(IllegalStateException.class, () -> new CertificateIdentities("email").identityOf(plain));
    }
}
