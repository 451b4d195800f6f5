package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.CertificateForge.Issued;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXCertPathValidatorResult;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Choosing the issuer among several CAs of one name (a rotation, or a re-keyed intermediate): each verifier must find
 * the one whose key verifies, wherever it is listed, not the first of the name; and revocation is then looked up in
 * that CA's list.
 */
class RotatedCaChainTest {
    private static final String NAME = "CN=Fleet Root";
    private final Issued oldRoot = CertificateForge.ca(NAME, CertificateForge.keys("p256"), null);
    private final Issued newRoot = CertificateForge.ca(NAME, CertificateForge.keys("p256"), null);
    /** The old CA first, as an operator appends the new one during a rotation. */
    private final List<X509Certificate> cas = List.of(oldRoot.certificate(), newRoot.certificate());

    private DeviceCertificateVerifier verifier(String kind) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        return switch (kind) {
            case "pkix" -> new PkixVerifier(cas, policy);
            case "lean-parsed" -> new LeanVerifier(cas, policy, 100, false);
            default -> new LeanVerifier(cas, policy, 100);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void findsTheSecondListedCaOfANameForItsDevice(String kind) throws Exception {
        Issued device = CertificateForge.device("CN=dev-new", CertificateForge.keys("p256"), newRoot, null);
        DeviceCertificateVerifier.Verdict verdict = verifier(kind).check(new X509Certificate[] {device.certificate()},
                System.currentTimeMillis());
        assertEquals(CertificateAuthority.of(newRoot.certificate()), verdict.path().issuer(0),
                "looked up in the new CA's CRL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void findsTheSecondListedCaOfANameForASentIntermediate(String kind) throws Exception {
        Issued intermediate = CertificateForge.intermediate("CN=Fleet Issuing CA", CertificateForge.keys("p256"),
                newRoot, null);
        Issued device = CertificateForge.device("CN=dev-via", CertificateForge.keys("p256"), intermediate, null);
        DeviceCertificateVerifier.Verdict verdict = verifier(kind).check(new X509Certificate[] {device.certificate(),
            intermediate.certificate()}, System.currentTimeMillis());
        assertEquals(CertificateAuthority.of(newRoot.certificate()), verdict.path().issuer(1));
    }

    /**
     * A device that sends both intermediates of a re-keyed issuing CA (old key first): the lean walk takes the one
     * whose key verifies. PKIX validates the chain as sent, so there the device must send its own intermediate.
     */
    @ParameterizedTest
    @ValueSource(strings = {"lean", "lean-parsed"})
    void triesEverySentIntermediateOfTheIssuersName(String kind) throws Exception {
        Issued oldIntermediate = CertificateForge.intermediate("CN=Fleet Issuing CA", CertificateForge.keys("p256"),
                oldRoot, null);
        Issued newIntermediate = CertificateForge.intermediate("CN=Fleet Issuing CA", CertificateForge.keys("p256"),
                newRoot, null);
        Issued device = CertificateForge.device("CN=dev-rekeyed", CertificateForge.keys("p256"), newIntermediate,
                null);
        DeviceCertificateVerifier.Verdict verdict = verifier(kind).check(new X509Certificate[] {device.certificate(),
            oldIntermediate.certificate(), newIntermediate.certificate()}, System.currentTimeMillis());
        assertEquals(CertificateAuthority.of(newIntermediate.certificate()), verdict.path().issuer(0));
        assertEquals(CertificateAuthority.of(newRoot.certificate()), verdict.path().issuer(1));
    }

    /**
     * What the JDK's validator does on its own with two anchors of one name: it tries each anchor whose name matches
     * and succeeds with the one whose key verifies, in either order (only its report of a failure depends on the last
     * anchor tried, which is why the pkix verifier offers only the CAs whose key verifies).
     */
    @Test
    void theJdksValidatorFindsTheAnchorWhoseKeyVerifiesAmongTwoOfOneName() throws Exception {
        Issued device = CertificateForge.device("CN=dev-jdk", CertificateForge.keys("p256"), newRoot, null);
        for (List<Issued> order : List.of(List.of(oldRoot, newRoot), List.of(newRoot, oldRoot))) {
            Set<TrustAnchor> anchors = new LinkedHashSet<>();
            order.forEach(ca -> anchors.add(new TrustAnchor(ca.certificate(), null)));
            PKIXParameters parameters = new PKIXParameters(anchors);
            parameters.setRevocationEnabled(false);
            PKIXCertPathValidatorResult result = (PKIXCertPathValidatorResult) CertPathValidator.getInstance("PKIX")
                    .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(device.certificate())),
                            parameters);
            assertEquals(newRoot.certificate(), result.getTrustAnchor().getTrustedCert());
        }
    }
}
