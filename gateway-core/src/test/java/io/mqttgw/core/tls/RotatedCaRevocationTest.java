package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.CaRotation;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Revocation during a CA rotation: two configured CAs with one subject name and different keys, one CRL from each.
 * Every verifier must look a certificate up in the list of the CA that signed it, whichever list is newer.
 */
class RotatedCaRevocationTest {
    private static final String NAME = "CN=Fleet CA";
    private static final Instant HOUR_AGO = Instant.now().minus(1, ChronoUnit.HOURS);

    @TempDir
    Path dir;

    private final X509Bundle oldCa = CaRotation.authority(NAME);
    private final X509Bundle newCa = CaRotation.authority(NAME);
    private final List<X509Certificate> cas = List.of(oldCa.getCertificate(), newCa.getCertificate());

    /** lean reads the common case from the DER; lean-parsed is the same verifier through the JDK's parse. */
    private DeviceCertificateVerifier verifier(String kind, RevocationLists lists) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(lists, false);
        return switch (kind) {
            case "pkix" -> new PkixVerifier(cas, policy);
            case "lean-parsed" -> new LeanVerifier(cas, policy, 1000, false);
            default -> new LeanVerifier(cas, policy, 1000);
        };
    }

    private RevocationLists lists(String... pem) {
        return RevocationLists.of(TlsFiles.crls("listener.tls.crl-file", CaRotation.write(dir.resolve("c.crl"), pem)),
                cas);
    }

    private static void refusedAsRevoked(DeviceCertificateVerifier verifier, X509Bundle device) {
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {device.getCertificate()}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.CERTIFICATE_REVOKED, TlsFailureReason.classify(e), e.getMessage());
    }

    private static void accepted(DeviceCertificateVerifier verifier, X509Bundle device) {
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {device.getCertificate()},
                System.currentTimeMillis()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesADeviceRevokedByEitherCaOfARotation(String kind) throws Exception {
        X509Bundle stolenOld = CaRotation.device("stolen-old", oldCa, BigInteger.valueOf(1001));
        X509Bundle stolenNew = CaRotation.device("stolen-new", newCa, BigInteger.valueOf(2001));
        X509Bundle goodOld = CaRotation.device("good-old", oldCa, BigInteger.valueOf(1002));
        X509Bundle goodNew = CaRotation.device("good-new", newCa, BigInteger.valueOf(2002));
        // the new CA's list is the newer one: a list per name would keep it and forget the old CA's revocations
        DeviceCertificateVerifier verifier = verifier(kind, lists(
                CaRotation.crl(oldCa, HOUR_AGO.minus(1, ChronoUnit.HOURS), stolenOld),
                CaRotation.crl(newCa, HOUR_AGO, stolenNew)));
        refusedAsRevoked(verifier, stolenOld);
        refusedAsRevoked(verifier, stolenNew);
        accepted(verifier, goodOld);
        accepted(verifier, goodNew);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void aSerialRevokedByOneCaLeavesTheSameSerialOfTheOtherCaAlone(String kind) throws Exception {
        BigInteger serial = BigInteger.valueOf(77);
        X509Bundle revoked = CaRotation.device("revoked", oldCa, serial);
        X509Bundle twin = CaRotation.device("twin", newCa, serial);
        // the old CA's list is the newer one this time, and the new CA's list is empty
        DeviceCertificateVerifier verifier = verifier(kind, lists(
                CaRotation.crl(newCa, HOUR_AGO.minus(1, ChronoUnit.HOURS)),
                CaRotation.crl(oldCa, HOUR_AGO, revoked)));
        refusedAsRevoked(verifier, revoked);
        accepted(verifier, twin);
    }

    @org.junit.jupiter.api.Test
    void aCachedDeviceIsCheckedAgainstTheListOfItsOwnCaAfterACrlReload() throws Exception {
        BigInteger serial = BigInteger.valueOf(88);
        X509Bundle revoked = CaRotation.device("revoked", oldCa, serial);
        X509Bundle twin = CaRotation.device("twin", newCa, serial);
        long now = System.currentTimeMillis();
        DeviceCertificateVerifier before = DeviceCertificateVerifier.lean(cas, RevocationLists.NONE, false, 100, null);
        before.verify(new X509Certificate[] {revoked.getCertificate()}, now);
        before.verify(new X509Certificate[] {twin.getCertificate()}, now);

        DeviceCertificateVerifier after = DeviceCertificateVerifier.lean(cas, lists(CaRotation.crl(oldCa, HOUR_AGO,
                revoked)), false, 100, before);
        org.junit.jupiter.api.Assertions.assertTrue(after.verify(new X509Certificate[] {twin.getCertificate()}, now),
                "known, and not revoked by the other CA's list");
        refusedAsRevoked(after, revoked);
    }
}
