package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.CertificateForge.Issued;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Name constraints of a configured root or of a CA the device sends bind every certificate below it, on both
 * verifiers: a device named outside them is refused, one inside accepted. The lean walk does not evaluate them itself;
 * it hands such chains to PKIX, which is given the configured root as part of the path (the JDK ignores the
 * constraints of a trust anchor).
 */
class NameConstraintsTest {
    private static final GeneralSubtree[] FLEET_A = {
        new GeneralSubtree(new GeneralName(new X500Name("O=Fleet A"))),
        new GeneralSubtree(new GeneralName(GeneralName.dNSName, "fleet-a.example"))};

    private static CertificateForge.Extensions constraints(boolean critical) {
        return b -> b.addExtension(Extension.nameConstraints, critical, new NameConstraints(FLEET_A, null));
    }

    private static DeviceCertificateVerifier verifier(String kind, X509Certificate ca) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        return switch (kind) {
            case "pkix" -> new PkixVerifier(List.of(ca), policy);
            case "lean-parsed" -> new LeanVerifier(List.of(ca), policy, 100, false);
            default -> new LeanVerifier(List.of(ca), policy, 100);
        };
    }

    private static Issued device(String subject, String dns, Issued issuer) {
        return CertificateForge.device(subject, CertificateForge.keys("p256"), issuer, dns == null ? null
                : b -> b.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(new GeneralName(GeneralName.dNSName, dns))));
    }

    private static void accepted(DeviceCertificateVerifier verifier, Issued... chain) {
        assertDoesNotThrow(() -> verifier.verify(certificates(chain), System.currentTimeMillis()));
        // and again, when the lean verifier could answer from its cache
        assertDoesNotThrow(() -> verifier.verify(certificates(chain), System.currentTimeMillis()));
    }

    private static void refused(DeviceCertificateVerifier verifier, Issued... chain) {
        assertThrows(CertificateException.class, () -> verifier.verify(certificates(chain),
                System.currentTimeMillis()));
    }

    private static X509Certificate[] certificates(Issued... chain) {
        X509Certificate[] out = new X509Certificate[chain.length];
        for (int i = 0; i < chain.length; i++) {
            out[i] = chain[i].certificate();
        }
        return out;
    }

    @ParameterizedTest(name = "{0}, critical {1}")
    @CsvSource({"lean,true", "lean-parsed,true", "pkix,true", "lean,false", "lean-parsed,false", "pkix,false"})
    void appliesTheNameConstraintsOfAConfiguredRoot(String kind, boolean critical) throws Exception {
        // (listener.tls.ca-file refuses a non-critical one at startup: ConfiguredCaFileTest; the verifiers apply both)
        Issued root = CertificateForge.ca("CN=Constrained Root", CertificateForge.keys("p256"), b -> {
            CertificateForge.caExtensions(b);
            constraints(critical).addTo(b);
        });
        DeviceCertificateVerifier verifier = verifier(kind, root.certificate());
        accepted(verifier, device("O=Fleet A,CN=dev-in", "d1.fleet-a.example", root));
        // without a SAN, the JDK checks a CN that reads as a host name against a dNSName constraint too
        accepted(verifier, device("O=Fleet A,CN=Device 7", null, root));
        refused(verifier, device("O=Fleet A,CN=dev-in-no-san", null, root));
        refused(verifier, device("O=Fleet B,CN=dev-out", null, root));
        refused(verifier, device("O=Fleet A,CN=dev-out-dns", "d1.fleet-b.example", root));
        // the subject inside, a name the device could also be known by outside: refused all the same
        refused(verifier, device("O=Fleet A,CN=dev-mixed", "fleet-b.example", root));
    }

    @ParameterizedTest(name = "{0}, critical {1}")
    @CsvSource({"lean,true", "lean-parsed,true", "pkix,true", "lean,false", "lean-parsed,false", "pkix,false"})
    void appliesTheNameConstraintsOfASentIntermediate(String kind, boolean critical) throws Exception {
        Issued root = CertificateForge.ca("CN=Open Root", CertificateForge.keys("p256"), null);
        Issued intermediate = CertificateForge.intermediate("CN=Fleet A Issuing CA", CertificateForge.keys("p256"),
                root, constraints(critical));
        DeviceCertificateVerifier verifier = verifier(kind, root.certificate());
        accepted(verifier, device("O=Fleet A,CN=dev-in", "d1.fleet-a.example", intermediate), intermediate);
        refused(verifier, device("O=Fleet B,CN=dev-out", null, intermediate), intermediate);
        refused(verifier, device("O=Fleet A,CN=dev-out-dns", "d1.fleet-b.example", intermediate), intermediate);
    }
}
