package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.CertificateForge.Issued;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The key floor on the device's path: a device or a CA it sends with a DSA key, an RSA key under 2048 bits, or an EC
 * key on a curve other than P-256/384/521 is refused in the handshake and counted {@code weak_key}, on both
 * verifiers (the configured CAs are held to the same floor at startup: {@link ConfiguredCaFileTest}).
 */
class WeakKeyTest {
    private static final Issued ROOT = CertificateForge.ca("CN=Key Floor Root", CertificateForge.keys("p256"), null);

    private static DeviceCertificateVerifier verifier(String kind) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        List<X509Certificate> cas = List.of(ROOT.certificate());
        return switch (kind) {
            case "pkix" -> new PkixVerifier(cas, policy);
            case "lean-parsed" -> new LeanVerifier(cas, policy, 100, false);
            default -> new LeanVerifier(cas, policy, 100);
        };
    }

    private static Issued device(String key, Issued issuer) {
        return CertificateForge.device("CN=dev-" + key, CertificateForge.keys(key), issuer, null);
    }

    @ParameterizedTest(name = "{0}: device key {1}")
    @CsvSource({"lean,rsa1024", "lean-parsed,rsa1024", "pkix,rsa1024", "lean,dsa", "lean-parsed,dsa", "pkix,dsa",
        "lean,p192", "lean-parsed,p192", "pkix,p192", "lean,secp256k1", "lean-parsed,secp256k1", "pkix,secp256k1"})
    void refusesADeviceKeyUnderTheFloorAsWeakKey(String kind, String key) throws Exception {
        Issued device = device(key, ROOT);
        CertificateException e = assertThrows(CertificateException.class, () -> verifier(kind).verify(
                new X509Certificate[] {device.certificate()}, System.currentTimeMillis()));
        assertEquals(TlsFailureReason.WEAK_KEY, TlsFailureReason.classify(e), e.getMessage());
    }

    @ParameterizedTest(name = "{0}: intermediate key {1}")
    @CsvSource({"lean,rsa1024", "pkix,rsa1024", "lean,secp256k1", "pkix,secp256k1", "lean,dsa", "pkix,dsa"})
    void refusesASentIntermediateKeyUnderTheFloorAsWeakKey(String kind, String key) throws Exception {
        Issued intermediate = CertificateForge.intermediate("CN=Weak Issuing CA", CertificateForge.keys(key), ROOT,
                null);
        Issued device = device("p256", intermediate);
        CertificateException e = assertThrows(CertificateException.class, () -> verifier(kind).verify(
                new X509Certificate[] {device.certificate(), intermediate.certificate()},
                System.currentTimeMillis()));
        assertEquals(TlsFailureReason.WEAK_KEY, TlsFailureReason.classify(e), e.getMessage());
    }

    @ParameterizedTest(name = "{0}: device key {1}")
    @CsvSource({"lean,p256", "lean-parsed,p256", "pkix,p256", "lean,p384", "pkix,p384", "lean,rsa2048",
        "pkix,rsa2048"})
    void acceptsDeviceKeysAtOrAboveTheFloor(String kind, String key) throws Exception {
        Issued device = device(key, ROOT);
        assertDoesNotThrow(() -> verifier(kind).verify(new X509Certificate[] {device.certificate()},
                System.currentTimeMillis()));
    }
}
