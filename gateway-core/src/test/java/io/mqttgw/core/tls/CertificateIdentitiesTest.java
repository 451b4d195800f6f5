package io.mqttgw.core.tls;

import static io.mqttgw.core.testkit.IdentityCertificates.UTF8_STRING;
import static io.mqttgw.core.testkit.IdentityCertificates.cn;
import static io.mqttgw.core.testkit.IdentityCertificates.name;
import static io.mqttgw.core.testkit.IdentityCertificates.rdn;
import static io.mqttgw.core.testkit.IdentityCertificates.sanDns;
import static io.mqttgw.core.testkit.IdentityCertificates.sanUri;
import static io.mqttgw.core.testkit.IdentityCertificates.subjectAltName;
import static io.mqttgw.core.testkit.IdentityCertificates.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.IdentityCertificates;
import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.CertificateBuilder;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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

    private static X509Certificate issued(IdentityCertificates.Case c) {
        return IdentityCertificates.device(pki.ca(), c.subject()).getCertificate();
    }

    /** The counted reason of the refusal {@code read} throws. */
    private static String refusal(Executable read) {
        return TlsFailureReason.classify(assertThrows(CertificateException.class, read)).label();
    }

    static List<IdentityCertificates.Case> cases() {
        return IdentityCertificates.CASES;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void readsEachStringTypeByItsOwnRulesAndRefusesTheRestWithACountedReason(IdentityCertificates.Case c)
            throws Exception {
        X509Certificate certificate = issued(c);
        CertificateIdentities identities = new CertificateIdentities("cn");
        if (c.identity() != null) {
            assertEquals(c.identity(), identities.identityOf(certificate));
            identities.read(certificate);
        } else {
            assertEquals(c.refusal(), refusal(() -> identities.identityOf(certificate)));
            assertEquals(c.refusal(), refusal(() -> identities.read(certificate)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theDerFastPathReadsWhatTheParsedPathReadsAndNothingItRefuses(IdentityCertificates.Case c) throws Exception {
        X509Certificate certificate = issued(c);
        CertificateDer.Facts facts = CertificateDer.read(certificate.getEncoded());
        if (c.identity() != null) {
            assertEquals(c.identity(), facts.commonName());
            assertEquals(CertificateIdentities.commonName(certificate), facts.commonName());
        } else {
            assertNull(facts, "the fast path leaves the refusal and its reason to the parsed path");
        }
    }

    @Test
    void aBmpStringSpellingVictimInAsciiIsNotVictim() throws Exception {
        X509Certificate certificate = issued(IdentityCertificates.named("BMPString whose bytes spell victim in ASCII"));
        String identity = new CertificateIdentities("cn").identityOf(certificate);
        assertEquals("\u7669\u6374\u696d", identity);
        // what the JDK's string form made of it, the identity before
        assertEquals("CN=victim", certificate.getSubjectX500Principal().getName());
    }

    @Test
    void readsTheCommonName() throws Exception {
        assertEquals("dev-cn", new CertificateIdentities("cn").identityOf(withSans));
        assertEquals("dev-1", new CertificateIdentities("cn").identityOf(plain));
    }

    @Test
    void readsTheSanUri() throws Exception {
        assertEquals("urn:device:42", new CertificateIdentities("san-uri").identityOf(withSans));
    }

    @Test
    void readsTheSanDnsName() throws Exception {
        assertEquals("dev42.devices.example", new CertificateIdentities("san-dns").identityOf(withSans));
    }

    @Test
    void hasNoSanIdentityWithoutSans() throws Exception {
        assertNull(new CertificateIdentities("san-uri").identityOf(plain));
        assertNull(new CertificateIdentities("san-dns").identityOf(plain));
    }

    @Test
    void refusesTwoSansOfTheConfiguredKindOnly() throws Exception {
        byte[] subject = name(rdn(cn(UTF8_STRING, utf8("dev-1"))));
        X509Certificate twoUris = IdentityCertificates.device(pki.ca(), subject,
                subjectAltName(sanUri("urn:device:victim"), sanDns("dev.example"), sanUri("urn:device:attacker")))
                .getCertificate();
        assertEquals("ambiguous_identity", refusal(() -> new CertificateIdentities("san-uri").identityOf(twoUris)));
        assertEquals("ambiguous_identity",
                refusal(() -> new CertificateIdentities("san-uri").read(twoUris)));
        assertEquals("dev.example", new CertificateIdentities("san-dns").identityOf(twoUris));
        assertEquals("dev-1", new CertificateIdentities("cn").identityOf(twoUris));

        X509Certificate twoNames = IdentityCertificates.device(pki.ca(), subject,
                subjectAltName(sanDns("victim.example"), sanDns("attacker.example"))).getCertificate();
        assertEquals("ambiguous_identity", refusal(() -> new CertificateIdentities("san-dns").identityOf(twoNames)));
        assertNull(new CertificateIdentities("san-uri").identityOf(twoNames));
    }

    @Test
    void refusesASanThatIsNotAscii() throws Exception {
        X509Certificate latin = IdentityCertificates.device(pki.ca(), name(rdn(cn(UTF8_STRING, utf8("dev-1")))),
                subjectAltName(IdentityCertificates.tlv(0x86, new byte[] {'u', ':', (byte) 0xfc}))).getCertificate();
        assertEquals("bad_identity_encoding",
                refusal(() -> new CertificateIdentities("san-uri").identityOf(latin)));
    }

    @Test
    void readsTheSanIdentityWhateverTheSubjectHolds() throws Exception {
        X509Certificate twoCns = IdentityCertificates.device(pki.ca(), IdentityCertificates.named("two CNs").subject(),
                subjectAltName(sanUri("urn:device:7"))).getCertificate();
        new CertificateIdentities("san-uri").read(twoCns);
        assertEquals("urn:device:7", new CertificateIdentities("san-uri").identityOf(twoCns));
    }

    @Test
    void takesTheCommonNameAmongOtherAttributes() throws Exception {
        X509Certificate cert = withSubject("CN=dev-7, OU=Fleet, O=Acme, C=DE");
        assertEquals("dev-7", new CertificateIdentities("cn").identityOf(cert));
    }

    @Test
    void refusesASubjectWithTwoCommonNames() throws Exception {
        // it used to take the most specific one: which one names the device is the issuer's guess, not ours
        X509Certificate cert = withSubject("CN=dev-leaf, CN=fleet-group, O=Acme");
        assertEquals("ambiguous_identity", refusal(() -> new CertificateIdentities("cn").identityOf(cert)));
    }

    @Test
    void readsTheCommonNameWithoutLdapEscapes() throws Exception {
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
        new CertificateIdentities("cn").read(cert);
    }

    @Test
    void rejectsAnUnknownSource() {
        assertThrows(IllegalStateException.class, () -> new CertificateIdentities("email").identityOf(plain));
    }
}
