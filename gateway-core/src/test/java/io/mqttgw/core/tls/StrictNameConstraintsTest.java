package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.CertificateForge;
import io.mqttgw.core.testkit.CertificateForge.Issued;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.asn1.x509.PolicyConstraints;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where the JDK's name-constraint matching is laxer than RFC 5280, both verifiers refuse all the same: a wildcard SAN
 * under an excluded subtree it covers, a malformed SAN under name constraints, a malformed constraint (sent, or in the
 * CA file as a configuration error), a chain whose names times constraints exceed the work bound; and a CA whose
 * policyConstraints is not critical.
 */
class StrictNameConstraintsTest {
    private static final Issued ROOT = CertificateForge.ca("CN=Open Root", CertificateForge.keys("p256"), null);

    private static DeviceCertificateVerifier verifier(String kind, X509Certificate ca) throws Exception {
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        return switch (kind) {
            case "pkix" -> new PkixVerifier(List.of(ca), policy);
            case "lean-parsed" -> new LeanVerifier(List.of(ca), policy, 100, false);
            default -> new LeanVerifier(List.of(ca), policy, 100);
        };
    }

    private static CertificateForge.Extensions constraints(GeneralSubtree[] permitted, GeneralSubtree[] excluded) {
        return b -> b.addExtension(Extension.nameConstraints, true, new NameConstraints(permitted, excluded));
    }

    private static GeneralSubtree[] subtrees(GeneralName... names) {
        GeneralSubtree[] out = new GeneralSubtree[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = new GeneralSubtree(names[i]);
        }
        return out;
    }

    private static Issued device(Issued issuer, GeneralName... sans) {
        return CertificateForge.device("CN=dev-1", CertificateForge.keys("p256"), issuer, sans.length == 0 ? null
                : b -> b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans)));
    }

    private static GeneralName dns(String name) {
        return new GeneralName(GeneralName.dNSName, name);
    }

    private static TlsFailureReason refused(DeviceCertificateVerifier verifier, Issued device, Issued sent) {
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {device.certificate(), sent.certificate()}, System.currentTimeMillis()));
        return TlsFailureReason.classify(e);
    }

    private static void accepted(DeviceCertificateVerifier verifier, Issued device, Issued sent) {
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {device.certificate(), sent.certificate()},
                System.currentTimeMillis()));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesWildcardSanThatCoversAnExcludedName(String kind) throws Exception {
        Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                constraints(null, subtrees(dns("bar.fleet.example"))));
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        // *.fleet.example also names bar.fleet.example, which the CA may not vouch for
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, refused(verifier, device(ca, dns("*.fleet.example")),
                ca));
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, refused(verifier, device(ca, dns("*.bar.fleet.example")),
                ca));
        // wildcards that cannot reach the excluded name (one label only), and a sibling name, stay in
        accepted(verifier, device(ca, dns("*.pumps.fleet.example")), ca);
        accepted(verifier, device(ca, dns("*.example")), ca);
        accepted(verifier, device(ca, dns("foo.fleet.example")), ca);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesWildcardSanWiderThanThePermittedSubtree(String kind) throws Exception {
        Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                constraints(subtrees(dns("bar.fleet.example")), null));
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, refused(verifier, device(ca, dns("*.fleet.example")),
                ca));
        accepted(verifier, device(ca, dns("*.bar.fleet.example")), ca);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesMalformedSanUnderNameConstraints(String kind) throws Exception {
        Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                constraints(subtrees(dns("fleet.example"), new GeneralName(GeneralName.rfc822Name,
                        "fleet.example")), null));
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, refused(verifier, device(ca, dns(".fleet.example")),
                ca));
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, refused(verifier, device(ca,
                new GeneralName(GeneralName.rfc822Name, "pump@7@fleet.example")), ca));
        accepted(verifier, device(ca, dns("pump-7.fleet.example"),
                new GeneralName(GeneralName.rfc822Name, "pump.7@fleet.example")), ca);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesSentCaWithMalformedConstraints(String kind) throws Exception {
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        GeneralName[] malformed = {dns(".fleet.example"),
            new GeneralName(GeneralName.iPAddress, new DEROctetString(new byte[] {10, 0, 0, 1})),
            new GeneralName(GeneralName.iPAddress, new DEROctetString(new byte[] {10, 0, 0, 0, -1, 0, -1, 0}))};
        for (GeneralName constraint : malformed) {
            Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                    constraints(subtrees(constraint), null));
            assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, refused(verifier,
                    device(ca, new GeneralName(GeneralName.iPAddress, "10.0.0.1"), dns("a.fleet.example")), ca),
                    constraint.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void boundsTheWorkOfNameConstraints(String kind) throws Exception {
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        // the device names itself twice (subject and one SAN): 512 subtrees are 1,024 comparisons, 513 one too many
        for (int count : new int[] {512, 513}) {
            GeneralName[] permitted = manyNames(count);
            Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                    constraints(subtrees(permitted), null));
            Issued device = device(ca, dns("t7.fleet.example"));
            if (count * 2 <= StrictNameConstraints.MAX_COMPARISONS) {
                accepted(verifier, device, ca);
            } else {
                assertEquals(TlsFailureReason.CERTIFICATE_REJECTED, refused(verifier, device, ca));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "lean-parsed", "pkix"})
    void refusesSentCaWithNonCriticalPolicyConstraints(String kind) throws Exception {
        DeviceCertificateVerifier verifier = verifier(kind, ROOT.certificate());
        for (boolean critical : new boolean[] {true, false}) {
            Issued ca = CertificateForge.intermediate("CN=Fleet CA", CertificateForge.keys("p256"), ROOT,
                    b -> b.addExtension(Extension.policyConstraints, critical, new PolicyConstraints(null,
                            java.math.BigInteger.ONE)));
            Issued device = device(ca);
            if (critical) {
                // critical: refused as an extension the lean walk does not evaluate (pkix evaluates it)
                if (!"pkix".equals(kind)) {
                    refused(verifier, device, ca);
                } else {
                    accepted(verifier, device, ca);
                }
            } else {
                assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, refused(verifier, device, ca));
            }
        }
    }

    private static GeneralName[] manyNames(int count) {
        GeneralName[] names = new GeneralName[count];
        for (int i = 0; i < count; i++) {
            names[i] = dns("t" + i + ".fleet.example");
        }
        return names;
    }

    @org.junit.jupiter.api.Test
    void refusesMalformedConstraintsAndNonCriticalPolicyConstraintsInTheCaFile() {
        List<CertificateForge.Extensions> broken = List.of(
            constraints(subtrees(dns(".fleet.example")), null),
            constraints(null, subtrees(new GeneralName(GeneralName.iPAddress,
                    new DEROctetString(new byte[] {10, 0, 0, 1})))),
            constraints(subtrees(new GeneralName(GeneralName.rfc822Name, "a@b@fleet.example")), null),
            constraints(new GeneralSubtree[] {new GeneralSubtree(dns("fleet.example"), java.math.BigInteger.ONE,
                    null)}, null),
            b -> b.addExtension(Extension.policyConstraints, false, new PolicyConstraints(null,
                    java.math.BigInteger.ONE)),
            // so many subtrees that no device could be checked within the work bound
            constraints(subtrees(manyNames(StrictNameConstraints.MAX_COMPARISONS)), null));
        for (CertificateForge.Extensions extensions : broken) {
            Issued root = CertificateForge.ca("CN=Broken Root", CertificateForge.keys("p256"), b -> {
                CertificateForge.caExtensions(b);
                extensions.addTo(b);
            });
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ConfiguredCas.require(List.of(root.certificate()), "listener.tls.ca-file"));
            assertTrue(e.getMessage().startsWith("listener.tls.ca-file"), e.getMessage());
        }
        Issued good = CertificateForge.ca("CN=Good Root", CertificateForge.keys("p256"), b -> {
            CertificateForge.caExtensions(b);
            constraints(subtrees(dns("fleet.example"), new GeneralName(GeneralName.iPAddress, "10.0.0.0/8"),
                    new GeneralName(GeneralName.rfc822Name, ".fleet.example")), null).addTo(b);
        });
        assertDoesNotThrow(() -> ConfiguredCas.require(List.of(good.certificate()), "listener.tls.ca-file"));
    }
}
