package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.testkit.CaRotation;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.IssuingDistributionPoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CRL index: one list per configured CA (name and key), the newest of each, partial lists refused. */
class RevocationListsTest {
    private static final String NAME = "CN=Fleet CA";
    private static final Instant EARLIER = Instant.now().minus(3, ChronoUnit.HOURS);
    private static final Instant LATER = Instant.now().minus(1, ChronoUnit.HOURS);

    @TempDir
    Path dir;

    private final X509Bundle oldCa = CaRotation.authority(NAME);
    private final X509Bundle newCa = CaRotation.authority(NAME);
    private final List<X509Certificate> cas = List.of(oldCa.getCertificate(), newCa.getCertificate());
    private final CertificateAuthority oldAuthority = CertificateAuthority.of(oldCa.getCertificate());
    private final CertificateAuthority newAuthority = CertificateAuthority.of(newCa.getCertificate());

    private RevocationLists lists(String... pem) {
        return RevocationLists.of(TlsFiles.crls("listener.tls.crl-file", CaRotation.write(dir.resolve("c.crl"), pem)),
                cas);
    }

    private X509Bundle device(String cn, X509Bundle ca, long serial) {
        return CaRotation.device(cn, ca, BigInteger.valueOf(serial));
    }

    @Test
    void keepsTheListOfEachCaOfOneName() {
        X509Bundle a = device("a", oldCa, 1);
        X509Bundle b = device("b", newCa, 2);
        RevocationLists lists = lists(CaRotation.crl(oldCa, EARLIER, a), CaRotation.crl(newCa, LATER, b));
        assertNotNull(lists.of(oldAuthority));
        assertNotNull(lists.of(newAuthority));
        assertTrue(lists.revoked(oldAuthority, BigInteger.ONE));
        assertTrue(lists.revoked(newAuthority, BigInteger.TWO));
        assertFalse(lists.revoked(newAuthority, BigInteger.ONE), "a serial belongs to one CA's list");
        assertFalse(lists.revoked(oldAuthority, BigInteger.TWO));
        assertEquals(2, lists.crls().size(), "both lists go to the PKIX checker");
    }

    @Test
    void keepsOnlyTheNewestListOfOneCa() {
        X509Bundle first = device("first", oldCa, 10);
        X509Bundle second = device("second", oldCa, 11);
        // file order must not matter: the newer list comes first
        RevocationLists lists = lists(CaRotation.crl(oldCa, LATER, second), CaRotation.crl(oldCa, EARLIER, first));
        assertTrue(lists.revoked(oldAuthority, BigInteger.valueOf(11)));
        assertFalse(lists.revoked(oldAuthority, BigInteger.TEN), "the older list is superseded");
        assertEquals(LATER.toEpochMilli() / 1000, lists.of(oldAuthority).thisUpdateMillis() / 1000);
        assertEquals(1, lists.crls().size());
    }

    @Test
    void readsTogetherTheListsOfOneCaIssuedAtTheSameTime() {
        RevocationLists lists = lists(CaRotation.crl(oldCa, LATER, device("x", oldCa, 20)),
                CaRotation.crl(oldCa, LATER, device("y", oldCa, 21)));
        assertTrue(lists.revoked(oldAuthority, BigInteger.valueOf(20)));
        assertTrue(lists.revoked(oldAuthority, BigInteger.valueOf(21)));
    }

    @Test
    void ignoresAListInTheNameOfAConfiguredCaSignedByAnotherKey() {
        X509Bundle impostor = CaRotation.authority(NAME);
        RevocationLists lists = lists(CaRotation.crl(impostor, LATER, device("victim", oldCa, 30)));
        assertTrue(lists.isEmpty());
        assertFalse(lists.revoked(oldAuthority, BigInteger.valueOf(30)));
    }

    @Test
    void refusesADeltaCrlNamingTheKeyAndTheFix() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lists(CaRotation.crl(oldCa, LATER,
                b -> addExtension(b, Extension.deltaCRLIndicator, new CRLNumber(BigInteger.ONE)))));
        assertTrue(e.getMessage().startsWith("listener.tls.crl-file"), e.getMessage());
        assertTrue(e.getMessage().contains("delta CRL") && e.getMessage().contains("one complete CRL per CA"),
                e.getMessage());
    }

    @Test
    void refusesAPartitionedCrl() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lists(CaRotation.crl(oldCa, LATER,
                b -> addExtension(b, Extension.issuingDistributionPoint,
                        new IssuingDistributionPoint(null, true, false)))));
        assertTrue(e.getMessage().contains("partitioned") && e.getMessage().contains("listener.tls.crl-file"),
                e.getMessage());
    }

    @Test
    void refusesAListWithACriticalExtensionItDoesNotEvaluate() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lists(CaRotation.crl(oldCa, LATER,
                b -> addExtension(b, new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.3.6.1.4.1.99999.1"),
                        org.bouncycastle.asn1.DERNull.INSTANCE))));
        assertTrue(e.getMessage().contains("1.3.6.1.4.1.99999.1"), e.getMessage());
    }

    @Test
    void refusesACrlWithoutACrlNumberNamingTheFileAndTheFix() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lists(
                CaRotation.crlWithoutNumber(oldCa, LATER, device("stolen", oldCa, 60))));
        assertTrue(e.getMessage().startsWith("listener.tls.crl-file"), e.getMessage());
        assertTrue(e.getMessage().contains("CRLNumber") && e.getMessage().contains(NAME), e.getMessage());
    }

    @Test
    void refusesACrlOfACaWhoseKeyUsageLacksCrlSign() throws Exception {
        X509Bundle certOnly = new CertificateBuilder().ecp256().subject("CN=Certificates Only CA")
                .setIsCertificateAuthority(true).setKeyUsage(true, CertificateBuilder.KeyUsage.keyCertSign)
                .notBefore(EARLIER).notAfter(LATER.plus(1, ChronoUnit.DAYS)).buildSelfSigned();
        List<X509Certificate> configured = List.of(certOnly.getCertificate());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RevocationLists.of(TlsFiles.crls(
                "listener.tls.crl-file", CaRotation.write(dir.resolve("c.crl"), CaRotation.crl(certOnly, LATER))),
                configured, "listener.tls.crl-file=" + dir.resolve("c.crl")));
        assertTrue(e.getMessage().startsWith("listener.tls.crl-file="), e.getMessage());
        assertTrue(e.getMessage().contains("CN=Certificates Only CA") && e.getMessage().contains("cRLSign"),
                e.getMessage());
    }

    @Test
    void aPartialListOfACaNobodyConfiguredIsIgnoredNotRefused() {
        X509Bundle foreign = CaRotation.authority("CN=Someone Else");
        RevocationLists lists = lists(CaRotation.crl(foreign, LATER,
                b -> addExtension(b, Extension.deltaCRLIndicator, new CRLNumber(BigInteger.ONE))));
        assertTrue(lists.isEmpty());
    }

    @Test
    void findsTheRevokedLinkOfAPathInItsOwnSignersList() throws Exception {
        X509Bundle intermediate = new CertificateBuilder().ecp256().subject("CN=Line 3").setIsCertificateAuthority(true)
                .serial(BigInteger.valueOf(40)).notBefore(EARLIER).notAfter(LATER.plus(1, ChronoUnit.DAYS))
                .buildIssuedBy(oldCa);
        RevocationLists lists = lists(CaRotation.crl(oldCa, LATER, intermediate));
        RevocationPath viaRevoked = new RevocationPath(new CertificateAuthority[] {
                CertificateAuthority.of(intermediate.getCertificate()), oldAuthority},
                new BigInteger[] {BigInteger.valueOf(41), BigInteger.valueOf(40)});
        assertEquals(1, lists.revokedLink(viaRevoked), "the intermediate, looked up in the root's list");
        RevocationPath sameSerialOtherCa = new RevocationPath(new CertificateAuthority[] {newAuthority},
                new BigInteger[] {BigInteger.valueOf(40)});
        assertEquals(-1, lists.revokedLink(sameSerialOtherCa));
    }

    @Test
    void aCaReissuedWithTheSameKeyIsOneAuthority() throws Exception {
        // netty-pkitesting makes a new key for a self-signed certificate: BouncyCastle re-issues with the old one
        var builder = new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(oldCa.getCertificate()
                .getSubjectX500Principal(), BigInteger.valueOf(999), java.util.Date.from(EARLIER),
                java.util.Date.from(LATER.plus(60, ChronoUnit.DAYS)), oldCa.getCertificate().getSubjectX500Principal(),
                oldCa.getKeyPair().getPublic());
        X509Certificate reissued = new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter().getCertificate(
                builder.build(new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder("SHA256withECDSA")
                        .build(oldCa.getKeyPair().getPrivate())));
        CertificateAuthority again = CertificateAuthority.of(reissued);
        assertEquals(oldAuthority, again);
        assertEquals(oldAuthority.hashCode(), again.hashCode());
        assertNotEquals(oldAuthority, newAuthority, "same name, other key");
        RevocationLists lists = lists(CaRotation.crl(oldCa, LATER, device("r", oldCa, 50)));
        assertTrue(lists.revoked(again, BigInteger.valueOf(50)));
        assertNull(lists.of(newAuthority));
    }

    private static void addExtension(org.bouncycastle.cert.X509v2CRLBuilder builder,
                                     org.bouncycastle.asn1.ASN1ObjectIdentifier oid,
                                     org.bouncycastle.asn1.ASN1Encodable value) {
        try {
            builder.addExtension(oid, true, value);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
