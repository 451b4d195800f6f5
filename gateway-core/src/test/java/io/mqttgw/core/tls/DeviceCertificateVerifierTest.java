package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import io.netty.handler.ssl.util.LazyX509Certificate;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.nio.file.Path;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.PKIXReason;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every refusal of both verifiers, as a hostile or broken device would provoke it: each must be thrown as the
 * alert-mapped {@link CertificateRefusals} exception, so the device reads the right alert and the gateway counts the
 * right reason.
 */
class DeviceCertificateVerifierTest {
    private static final long DAY = 86_400_000L;

    @TempDir
    Path dir;

    private TestPki pki;

    private TestPki pki() {
        if (pki == null) {
            pki = TestPki.create(dir.resolve("pki"));
        }
        return pki;
    }

    private DeviceCertificateVerifier verifier(String kind, List<X509Certificate> cas, RevocationLists crls,
                                               boolean hard) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(crls, hard);
        return "pkix".equals(kind) ? new PkixVerifier(cas, policy) : new LeanVerifier(cas, policy, 1000);
    }

    private DeviceCertificateVerifier verifier(String kind) throws Exception {
        return verifier(kind, List.of(pki().ca().getCertificate()), RevocationLists.NONE, false);
    }

    private static CertPathValidatorException.Reason refusal(DeviceCertificateVerifier verifier,
                                                             X509Certificate... chain) {
        CertificateException e = assertThrows(CertificateException.class,
                () -> verifier.verify(chain, System.currentTimeMillis()));
        assertTrue(e.getCause() instanceof CertPathValidatorException, "the JDK engine reads the direct cause: " + e);
        return ((CertPathValidatorException) e.getCause()).getReason();
    }

    private X509Bundle build(CertificateBuilder builder, X509Bundle issuer) {
        try {
            return builder.notBefore(Instant.now().minus(1, ChronoUnit.HOURS))
                    .notAfter(Instant.now().plus(1, ChronoUnit.DAYS)).buildIssuedBy(issuer);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private X509Bundle intermediate(String cn, X509Bundle issuer) {
        return build(pki().certificateBuilder().subject("CN=" + cn).setIsCertificateAuthority(true), issuer);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void acceptsDeviceIssuedByAConfiguredCa(String kind) throws Exception {
        X509Certificate device = pki().device("dev-1").getCertificate();
        assertDoesNotThrow(() -> verifier(kind).verify(new X509Certificate[] {device}, System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesDeviceFromUnknownCaAsUnknownCa(String kind) throws Exception {
        DeviceCertificateVerifier verifier = verifier(kind);
        assertEquals(PKIXReason.NO_TRUST_ANCHOR, refusal(verifier, pki().untrustedDevice("x").getCertificate()));
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {pki().untrustedDevice("y").getCertificate()}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CERTIFICATE_UNKNOWN_CA, TlsFailureReason.classify(e));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesExpiredDeviceAsExpired(String kind) throws Exception {
        assertEquals(BasicReason.EXPIRED, refusal(verifier(kind), pki().expiredDevice("old").getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesDeviceNotYetValid(String kind) throws Exception {
        X509Bundle future = pki().certificateBuilder().subject("CN=future").addExtendedKeyUsageClientAuth()
                .notBefore(Instant.now().plus(1, ChronoUnit.DAYS)).notAfter(Instant.now().plus(2, ChronoUnit.DAYS))
                .buildIssuedBy(pki().ca());
        assertEquals(BasicReason.NOT_YET_VALID, refusal(verifier(kind), future.getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesRevokedDeviceAsRevoked(String kind) throws Exception {
        X509Bundle stolen = pki().device("stolen");
        RevocationLists crls = RevocationLists.of(
                TlsFiles.crls("crl", pki().writeCrl(dir.resolve("c.crl"), stolen)),
                        List.of(pki().ca().getCertificate()));
        DeviceCertificateVerifier verifier = verifier(kind, List.of(pki().ca().getCertificate()), crls, false);
        assertEquals(BasicReason.REVOKED, refusal(verifier, stolen.getCertificate()));
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {pki().device("fine").getCertificate()},
                System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesCertificateSignedWithSha1(String kind) throws Exception {
        assertEquals(BasicReason.ALGORITHM_CONSTRAINED, refusal(verifier(kind), pki().sha1Device("sha1")
                .getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesCertificateWhoseExtendedKeyUsageExcludesClientAuth(String kind) throws Exception {
        X509Bundle server = build(pki().certificateBuilder().subject("CN=srv").addExtendedKeyUsageServerAuth(),
                pki().ca());
        assertEquals(PKIXReason.INVALID_KEY_USAGE, refusal(verifier(kind), server.getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesCertificateWhoseKeyUsageLacksDigitalSignature(String kind) throws Exception {
        X509Bundle encipher = build(pki().certificateBuilder().subject("CN=enc")
                .setKeyUsage(true, CertificateBuilder.KeyUsage.keyAgreement), pki().ca());
        assertEquals(PKIXReason.INVALID_KEY_USAGE, refusal(verifier(kind), encipher.getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesCertificateWhoseNonCriticalKeyUsageLacksDigitalSignature(String kind) throws Exception {
        X509Bundle encipher = build(pki().certificateBuilder().subject("CN=enc-nc").addExtendedKeyUsageClientAuth()
                .setKeyUsage(false, CertificateBuilder.KeyUsage.keyAgreement), pki().ca());
        assertEquals(PKIXReason.INVALID_KEY_USAGE, refusal(verifier(kind), encipher.getCertificate()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void acceptsCertificateWhoseKeyUsageAllowsDigitalSignature(String kind) throws Exception {
        X509Bundle signer = build(pki().certificateBuilder().subject("CN=signer").addExtendedKeyUsageClientAuth()
                .setKeyUsage(true, CertificateBuilder.KeyUsage.digitalSignature), pki().ca());
        assertDoesNotThrow(() -> verifier(kind).verify(new X509Certificate[] {signer.getCertificate()},
                System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesDeviceCertificateWithACriticalExtensionItDoesNotKnow(String kind) throws Exception {
        // RFC 5280 4.2: a critical extension the verifier does not understand means "do not accept"
        X509Bundle odd = build(pki().certificateBuilder().subject("CN=odd").addExtendedKeyUsageClientAuth()
                .addExtensionUtf8String("1.3.6.1.4.1.99999.1", true, "must be understood"), pki().ca());
        DeviceCertificateVerifier verifier = verifier(kind);
        assertEquals(PKIXReason.UNRECOGNIZED_CRIT_EXT, refusal(verifier, odd.getCertificate()));
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {odd.getCertificate()}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, TlsFailureReason.classify(e));
        X509Bundle optional = build(pki().certificateBuilder().subject("CN=optional").addExtendedKeyUsageClientAuth()
                .addExtensionUtf8String("1.3.6.1.4.1.99999.1", false, "may be ignored"), pki().ca());
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {optional.getCertificate()},
                System.currentTimeMillis()), "the same extension, not critical");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesADeviceThroughASentIntermediateWhoseNameConstraintsExcludeIt(String kind) throws Exception {
        // a sub-CA limited to *.plant-a.example; lean does not evaluate name constraints, so it must not ignore them
        byte[] onlyPlantA = new org.bouncycastle.asn1.x509.NameConstraints(new
                org.bouncycastle.asn1.x509.GeneralSubtree[] {
                new org.bouncycastle.asn1.x509.GeneralSubtree(new org.bouncycastle.asn1.x509.GeneralName(
                        org.bouncycastle.asn1.x509.GeneralName.dNSName, "plant-a.example"))}, null).getEncoded();
        X509Bundle constrained =
                build(pki().certificateBuilder().subject("CN=Plant A CA").setIsCertificateAuthority(true)
                .addExtensionOctetString("2.5.29.30", true, onlyPlantA), pki().ca());
        X509Certificate outside =
                build(pki().certificateBuilder().subject("CN=intruder").addExtendedKeyUsageClientAuth()
                .addSanDnsName("plant-b.example"), constrained).getCertificate();
        CertificateException e = assertThrows(CertificateException.class, () -> verifier(kind).verify(
                new X509Certificate[] {outside, constrained.getCertificate()}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, TlsFailureReason.classify(e), e.getMessage());
    }

    @Test
    void refusesCertificateSignedByAnImpostorWithTheCaName() throws Exception {
        X509Bundle impostor = pki().certificateBuilder().subject("CN=Test Device CA").setIsCertificateAuthority(true)
                .notBefore(Instant.now().minus(1, ChronoUnit.DAYS)).notAfter(Instant.now().plus(1, ChronoUnit.DAYS))
                .buildSelfSigned();
        X509Bundle forged = build(pki().certificateBuilder().subject("CN=forged").addExtendedKeyUsageClientAuth(),
                impostor);
        assertEquals(BasicReason.INVALID_SIGNATURE, refusal(verifier("lean"), forged.getCertificate()));
        CertificateException e = assertThrows(CertificateException.class, () -> verifier("pkix").verify(
                new X509Certificate[] {forged.getCertificate()}, System.currentTimeMillis()));
        assertTrue(TlsFailureReason.classify(e) != null, "the JDK's validator refuses it too");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void hardCrlModeRefusesDevicesOfAnIssuerWhoseCrlIsStale(String kind) throws Exception {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        RevocationLists stale = RevocationLists.of(TlsFiles.crls("crl", pki().writeStaleCrl(dir.resolve("s.crl"))),
                cas);
        assertEquals(BasicReason.UNDETERMINED_REVOCATION_STATUS,
                refusal(verifier(kind, cas, stale, true), pki().device("d").getCertificate()));
        assertDoesNotThrow(() -> verifier(kind, cas, stale, false).verify(
                new X509Certificate[] {pki().device("d").getCertificate()}, System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void hardCrlModeRefusesDevicesOfAnIssuerWithoutCrl(String kind) throws Exception {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        CertificateException e = assertThrows(CertificateException.class, () -> verifier(kind, cas,
                RevocationLists.NONE, true).verify(new X509Certificate[] {pki().device("d").getCertificate()},
                System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CRL_STALE, TlsFailureReason.classify(e));
    }

    @Test
    void ignoresACrlNoConfiguredCaSigned() {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        RevocationLists lists = RevocationLists.of(TlsFiles.crls("crl", pki().writeForeignCrl(dir.resolve("f.crl"))),
                cas);
        assertTrue(lists.all().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void acceptsDeviceThroughAnIntermediateItSends(String kind) throws Exception {
        X509Bundle sub = intermediate("Sub CA", pki().ca());
        X509Certificate device = build(pki().certificateBuilder().subject("CN=via-sub")
                .addExtendedKeyUsageClientAuth(), sub).getCertificate();
        assertDoesNotThrow(() -> verifier(kind).verify(new X509Certificate[] {device, sub.getCertificate()},
                System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void acceptsDeviceOfAConfiguredIntermediate(String kind) throws Exception {
        X509Bundle sub = intermediate("Sub CA", pki().ca());
        X509Certificate device = build(pki().certificateBuilder().subject("CN=via-sub")
                .addExtendedKeyUsageClientAuth(), sub).getCertificate();
        assertDoesNotThrow(() -> verifier(kind, List.of(sub.getCertificate()), RevocationLists.NONE, false)
                .verify(new X509Certificate[] {device}, System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesAChainThroughACertificateThatIsNoCa(String kind) throws Exception {
        X509Bundle notCa = build(pki().certificateBuilder().subject("CN=Not A CA").addExtendedKeyUsageClientAuth(),
                pki().ca());
        X509Certificate device = build(pki().certificateBuilder().subject("CN=below-leaf")
                .addExtendedKeyUsageClientAuth(), notCa).getCertificate();
        assertThrows(CertificateException.class, () -> verifier(kind).verify(
                new X509Certificate[] {device, notCa.getCertificate()}, System.currentTimeMillis()));
    }

    @Test
    void refusesAChainLongerThanTheLeanLimit() throws Exception {
        X509Bundle issuer = pki().ca();
        X509Certificate[] chain = new X509Certificate[LeanVerifier.MAX_SENT_INTERMEDIATES + 2];
        for (int i = LeanVerifier.MAX_SENT_INTERMEDIATES; i >= 0; i--) {
            issuer = intermediate("Sub " + i, issuer);
            chain[i + 1] = issuer.getCertificate();
        }
        chain[0] = build(pki().certificateBuilder().subject("CN=deep").addExtendedKeyUsageClientAuth(), issuer)
                .getCertificate();
        assertEquals(PKIXReason.NO_TRUST_ANCHOR, refusal(verifier("lean"), chain));
    }

    @Test
    void remembersAVerifiedCertificateAndStillRefusesItOnceExpired() throws Exception {
        LeanVerifier lean = (LeanVerifier) verifier("lean");
        X509Bundle device = pki().device("known");
        long now = System.currentTimeMillis();
        // the OpenSSL engine hands the verifier lazily parsed certificates; a hit needs only their DER
        lean.verify(new X509Certificate[] {new LazyX509Certificate(device.getCertificate().getEncoded())}, now);
        assertEquals(1, lean.cached());
        lean.verify(new X509Certificate[] {new LazyX509Certificate(device.getCertificate().getEncoded())}, now);
        assertEquals(1, lean.cached());
        CertificateException e = assertThrows(CertificateException.class, () -> lean.verify(
                new X509Certificate[] {device.getCertificate()}, now + 2 * DAY));
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(e));
    }

    @Test
    void boundsTheCacheOfVerifiedCertificates() throws Exception {
        LeanVerifier lean = new LeanVerifier(List.of(pki().ca().getCertificate()),
                new CertificatePolicy(RevocationLists.NONE, false), 8);
        for (int i = 0; i < 30; i++) {
            lean.verify(new X509Certificate[] {pki().device("d" + i).getCertificate()}, System.currentTimeMillis());
            assertTrue(lean.cached() <= 8, "cached " + lean.cached());
        }
    }

    @Test
    void aCrlReloadKeepsTheKnownDevicesAndRefusesTheOneItRevokes() throws Exception {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        X509Certificate kept = pki().device("kept").getCertificate();
        X509Bundle stolenBundle = pki().device("stolen");
        X509Certificate stolen = stolenBundle.getCertificate();
        long now = System.currentTimeMillis();
        DeviceCertificateVerifier before = DeviceCertificateVerifier.lean(cas, RevocationLists.NONE, false, 100, null);
        assertFalse(before.verify(new X509Certificate[] {kept}, now), "new to the first verifier");
        before.verify(new X509Certificate[] {stolen}, now);

        RevocationLists crl = RevocationLists.of(TlsFiles.crls("crl", pki().writeCrl(dir.resolve("c.crl"),
                stolenBundle)), cas);
        DeviceCertificateVerifier after = DeviceCertificateVerifier.lean(cas, crl, false, 100, before);
        assertTrue(after.verify(new X509Certificate[] {kept}, now), "known after a reload of the CRL alone");
        CertificateException e = assertThrows(CertificateException.class,
                () -> after.verify(new X509Certificate[] {stolen}, now));
        assertEquals(TlsFailureReason.CERTIFICATE_REVOKED, TlsFailureReason.classify(e));
    }

    /**
     * The lean verifier's cache is keyed by the device certificate alone: a device once proven through an intermediate
     * it sent may leave the intermediate out afterwards (a reconnect storm costs no signature work), which pkix
     * refuses. What the intermediate vouched for stays bounded by it: the remembered path carries its validity and its
     * (issuer, serial), checked again on every hit.
     */
    @Test
    void aKnownDeviceMayLeaveOutItsIntermediateButNotPastTheIntermediatesValidityOrRevocation() throws Exception {
        List<X509Certificate> cas = List.of(pki().ca().getCertificate());
        long now = System.currentTimeMillis();
        X509Bundle sub = pki().certificateBuilder().subject("CN=Short Sub CA").setIsCertificateAuthority(true)
                .notBefore(Instant.now().minus(1, ChronoUnit.HOURS)).notAfter(Instant.now().plus(1, ChronoUnit.HOURS))
                .buildIssuedBy(pki().ca());
        X509Certificate device = build(pki().certificateBuilder().subject("CN=via-short-sub")
                .addExtendedKeyUsageClientAuth(), sub).getCertificate();
        DeviceCertificateVerifier lean = DeviceCertificateVerifier.lean(cas, RevocationLists.NONE, false, 100, null);
        assertFalse(lean.verify(new X509Certificate[] {device, sub.getCertificate()}, now), "proven once, in full");
        assertTrue(lean.verify(new X509Certificate[] {device}, now), "known: the intermediate may be left out");
        assertThrows(CertificateException.class, () -> verifier("pkix").verify(new X509Certificate[] {device}, now),
                "pkix has no memory: it needs the intermediate every time");

        CertificateException expired = assertThrows(CertificateException.class,
                () -> lean.verify(new X509Certificate[] {device}, now + 2 * 3_600_000L));
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(expired),
                "the device is valid for a day, its intermediate for an hour: the path ends with the intermediate");

        RevocationLists crl = RevocationLists.of(TlsFiles.crls("crl", pki().writeCrl(dir.resolve("sub.crl"), sub)),
                cas);
        DeviceCertificateVerifier after = DeviceCertificateVerifier.lean(cas, crl, false, 100, lean);
        CertificateException revoked = assertThrows(CertificateException.class,
                () -> after.verify(new X509Certificate[] {device}, now));
        assertEquals(TlsFailureReason.CERTIFICATE_REVOKED, TlsFailureReason.classify(revoked),
                "a CRL of the root that revokes the intermediate revokes what it vouched for");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesADeviceOfAConfiguredCaThatHasExpired(String kind) throws Exception {
        X509Bundle oldCa = pki().certificateBuilder().subject("CN=Old CA").setIsCertificateAuthority(true)
                .notBefore(Instant.now().minus(30, ChronoUnit.DAYS)).notAfter(Instant.now().minus(1, ChronoUnit.HOURS))
                .buildSelfSigned();
        X509Certificate device = build(pki().certificateBuilder().subject("CN=outlives-its-ca")
                .addExtendedKeyUsageClientAuth(), oldCa).getCertificate();
        DeviceCertificateVerifier verifier = verifier(kind, List.of(oldCa.getCertificate()), RevocationLists.NONE,
                false);
        CertificateException e = assertThrows(CertificateException.class,
                () -> verifier.verify(new X509Certificate[] {device}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CERTIFICATE_EXPIRED, TlsFailureReason.classify(e), e.toString());
        // while the CA was valid the device was, and a remembered device is refused once its CA has expired
        long whileValid = System.currentTimeMillis() - 2 * 3_600_000L;
        X509Certificate earlyDevice = pki().certificateBuilder().subject("CN=known-before")
                .addExtendedKeyUsageClientAuth().notBefore(Instant.now().minus(1, ChronoUnit.DAYS))
                .notAfter(Instant.now().plus(1, ChronoUnit.DAYS))
                .buildIssuedBy(oldCa).getCertificate();
        assertFalse(verifier.verify(new X509Certificate[] {earlyDevice}, whileValid), "valid while its CA was");
        assertThrows(CertificateException.class,
                () -> verifier.verify(new X509Certificate[] {earlyDevice}, System.currentTimeMillis()));
    }

    @Test
    void aChangedCaFileStartsWithNoKnownDevice() throws Exception {
        X509Certificate device = pki().device("dev").getCertificate();
        long now = System.currentTimeMillis();
        DeviceCertificateVerifier before = DeviceCertificateVerifier.lean(List.of(pki().ca().getCertificate()),
                RevocationLists.NONE, false, 100, null);
        before.verify(new X509Certificate[] {device}, now);
        DeviceCertificateVerifier after = DeviceCertificateVerifier.lean(List.of(pki().ca().getCertificate(),
                pki().otherCa().getCertificate()), RevocationLists.NONE, false, 100, before);
        assertFalse(after.verify(new X509Certificate[] {device}, now), "verified again under the new CA file");
    }

    @Test
    void refusesAnUnknownCaEvenForAFingerprintItNeverSaw() throws Exception {
        LeanVerifier lean = (LeanVerifier) verifier("lean");
        assertThrows(CertificateException.class, () -> lean.verify(
                new X509Certificate[] {pki().untrustedDevice("x").getCertificate()}, System.currentTimeMillis()));
        assertEquals(0, lean.cached(), "a refused certificate is not remembered");
    }
}
