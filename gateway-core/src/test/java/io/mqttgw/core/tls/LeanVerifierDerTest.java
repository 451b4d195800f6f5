package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.Algorithm;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PublicKey;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lean verifier reads the common device certificate from its DER ({@link CertificateDer#signed}) instead of the
 * JDK's parse. That path may only ever accept what the JDK-parsed path accepts: every certificate here goes through
 * both, and their answers (accepted, or the same refusal) must be the same.
 */
class LeanVerifierDerTest {
    private static final Instant NOW = Instant.now();
    private static X509Bundle ca;
    private static X509Bundle sameNameOtherKey;
    private static X509Bundle intermediate;

    @BeforeAll
    static void authorities() throws Exception {
        ca = authority("CN=Device CA, O=Acme", Algorithm.ecp256);
        sameNameOtherKey = authority("CN=Device CA, O=Acme", Algorithm.ecp256);
        intermediate = new CertificateBuilder().ecp256().subject("CN=Line 2 CA, O=Acme").setIsCertificateAuthority(true)
                .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign)
                .notBefore(NOW.minus(1, ChronoUnit.DAYS)).notAfter(NOW.plus(30, ChronoUnit.DAYS)).buildIssuedBy(ca);
    }

    private static X509Bundle authority(String subject, Algorithm algorithm) throws Exception {
        return new CertificateBuilder().algorithm(algorithm).subject(subject).setIsCertificateAuthority(true)
                .notBefore(NOW.minus(1, ChronoUnit.DAYS)).notAfter(NOW.plus(30, ChronoUnit.DAYS)).buildSelfSigned();
    }

    private static CertificateBuilder device(String cn) {
        return new CertificateBuilder().ecp256().subject("CN=" + cn).notBefore(NOW.minus(1, ChronoUnit.HOURS))
                .notAfter(NOW.plus(1, ChronoUnit.DAYS));
    }

    @Test
    void acceptsAndRefusesExactlyWhatTheParsedPathDoes() throws Exception {
        X509Bundle rsaCa = authority("CN=RSA CA", Algorithm.rsa2048);
        X509Bundle p384Ca = authority("CN=P-384 CA", Algorithm.ecp384);
        Map<String, X509Certificate[]> chains = new LinkedHashMap<>();
        chains.put("plain", chain(device("d1").buildIssuedBy(ca)));
        chains.put("clientAuth", chain(device("d2").addExtendedKeyUsageClientAuth().buildIssuedBy(ca)));
        chains.put("serverAuth only", chain(device("d3").addExtendedKeyUsageServerAuth().buildIssuedBy(ca)));
        chains.put("client and server", chain(device("d4").addExtendedKeyUsageServerAuth()
                .addExtendedKeyUsageClientAuth().buildIssuedBy(ca)));
        chains.put("digitalSignature", chain(device("d5").setKeyUsage(true, KeyUsage.digitalSignature)
                .addExtendedKeyUsageClientAuth().buildIssuedBy(ca)));
        chains.put("keyAgreement only", chain(device("d6").setKeyUsage(false, KeyUsage.keyAgreement)
                .buildIssuedBy(ca)));
        chains.put("expired", chain(device("d7").notBefore(NOW.minus(3, ChronoUnit.DAYS))
                .notAfter(NOW.minus(1, ChronoUnit.DAYS)).buildIssuedBy(ca)));
        chains.put("not yet valid", chain(device("d8").notBefore(NOW.plus(1, ChronoUnit.DAYS))
                .notAfter(NOW.plus(3, ChronoUnit.DAYS)).buildIssuedBy(ca)));
        chains.put("same CA name, other key", chain(device("d9").buildIssuedBy(sameNameOtherKey)));
        chains.put("through a sent intermediate", chain(device("d10").buildIssuedBy(intermediate),
                intermediate.getCertificate()));
        chains.put("unknown issuer", chain(device("d11").buildIssuedBy(authority("CN=Other", Algorithm.ecp256))));
        chains.put("RSA CA", chain(device("d12").buildIssuedBy(rsaCa)));
        chains.put("P-384 CA", chain(device("d13").buildIssuedBy(p384Ca)));
        chains.put("SAN and other extensions", chain(device("d14").addSanDnsName("d14.example")
                .addExtensionUtf8String("1.3.6.1.4.1.99999.1", false, "x").buildIssuedBy(ca)));
        chains.put("unknown critical extension", chain(device("d16").addSanDnsName("d16.example")
                .addExtensionUtf8String("1.3.6.1.4.1.99999.1", true, "x").buildIssuedBy(ca)));
        X509Certificate good = device("d15").addExtendedKeyUsageClientAuth().buildIssuedBy(ca).getCertificate();
        chains.put("signature bit flipped", chain(changed(good, der -> flip(der, der.length - 3))));
        chains.put("body changed", chain(changed(good, der -> flip(der, indexOf(der,
                "d15".getBytes(StandardCharsets.UTF_8)) + 2))));
        chains.put("trailing byte", chain(changed(good, der -> java.util.Arrays.copyOf(der, der.length + 1))));

        List<X509Certificate> cas = List.of(ca.getCertificate(), rsaCa.getCertificate(), p384Ca.getCertificate());
        int accepted = 0;
        for (Map.Entry<String, X509Certificate[]> e : chains.entrySet()) {
            String fromDer = outcome(new LeanVerifier(cas, policy(), 0, true), e.getValue());
            String parsed = outcome(new LeanVerifier(cas, policy(), 0, false), e.getValue());
            assertEquals(parsed, fromDer, e.getKey());
            accepted += "accepted".equals(parsed) ? 1 : 0;
        }
        assertEquals(8, accepted, "the accepted ones: plain, clientAuth, client and server, digitalSignature, "
                + "intermediate, RSA, P-384, SAN (a byte after the certificate is refused: the JDK's parse ignored "
                + "it)");
    }

    @Test
    void acceptsACommonDeviceCertificateFromItsDerAlone() throws Exception {
        byte[] der = device("dev-1").addExtendedKeyUsageClientAuth().buildIssuedBy(ca).getCertificate().getEncoded();
        LeanVerifier verifier = new LeanVerifier(List.of(ca.getCertificate()), policy(), 100, true);
        X509Certificate[] chain = {new DerOnly(der)};
        assertDoesNotThrow(() -> verifier.verify(chain, System.currentTimeMillis()));
        LeanVerifier parsing = new LeanVerifier(List.of(ca.getCertificate()), policy(), 100, false);
        assertThrows(UnsupportedOperationException.class, () -> parsing.verify(chain, System.currentTimeMillis()),
                "without the DER path the verifier asks the parsed certificate");
    }

    @Test
    void stillChecksTheCrlOfACertificateReadFromItsDer(@TempDir Path dir) throws Exception {
        TestPki pki = TestPki.create(dir);
        X509Bundle stolen = pki.device("stolen");
        RevocationLists crls = RevocationLists.of(TlsFiles.crls("crl", pki.writeCrl(dir.resolve("c.crl"), stolen)),
                List.of(pki.ca().getCertificate()));
        LeanVerifier verifier = new LeanVerifier(List.of(pki.ca().getCertificate()), new CertificatePolicy(crls, false),
                100, true);
        CertificateException e = assertThrows(CertificateException.class, () -> verifier.verify(
                new X509Certificate[] {new DerOnly(stolen.getCertificate().getEncoded())}, System.currentTimeMillis()));
        assertEquals(BasicReason.REVOKED, ((CertPathValidatorException) e.getCause()).getReason());
        assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {new
                DerOnly(pki.device("fine").getCertificate().getEncoded())},
                System.currentTimeMillis()));
    }

    private static CertificatePolicy policy() {
        return new CertificatePolicy(RevocationLists.NONE, false);
    }

    private static String outcome(LeanVerifier verifier, X509Certificate[] chain) {
        try {
            verifier.verify(chain, System.currentTimeMillis());
            return "accepted";
        } catch (CertificateException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static X509Certificate[] chain(X509Bundle device, X509Certificate... more) {
        List<X509Certificate> chain = new ArrayList<>();
        chain.add(device.getCertificate());
        chain.addAll(List.of(more));
        return chain.toArray(new X509Certificate[0]);
    }

    private static X509Certificate[] chain(X509Certificate device) {
        return new X509Certificate[] {device};
    }

    private static X509Certificate changed(X509Certificate certificate, UnaryOperator<byte[]> change)
            throws Exception {
        return new io.netty.handler.ssl.util.LazyX509Certificate(change.apply(certificate.getEncoded()));
    }

    private static byte[] flip(byte[] der, int at) {
        byte[] copy = der.clone();
        copy[at] ^= 0x01;
        return copy;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    /** A certificate that answers nothing but its DER: any other question fails the test. */
    private static final class DerOnly extends X509Certificate {
        private final byte[] der;

        DerOnly(byte[] der) {
            this.der = der;
        }

        private static UnsupportedOperationException parsed() {
            return new UnsupportedOperationException("asked a parsed field");
        }

        @Override
        public byte[] getEncoded() {
            return der.clone();
        }

        @Override
        public void checkValidity() {
            throw parsed();
        }

        @Override
        public void checkValidity(Date date) {
            throw parsed();
        }

        @Override
        public int getVersion() {
            throw parsed();
        }

        @Override
        public BigInteger getSerialNumber() {
            throw parsed();
        }

        @Override
        public Principal getIssuerDN() {
            throw parsed();
        }

        @Override
        public X500Principal getIssuerX500Principal() {
            throw parsed();
        }

        @Override
        public Principal getSubjectDN() {
            throw parsed();
        }

        @Override
        public X500Principal getSubjectX500Principal() {
            throw parsed();
        }

        @Override
        public Date getNotBefore() {
            throw parsed();
        }

        @Override
        public Date getNotAfter() {
            throw parsed();
        }

        @Override
        public byte[] getTBSCertificate() {
            throw parsed();
        }

        @Override
        public byte[] getSignature() {
            throw parsed();
        }

        @Override
        public String getSigAlgName() {
            throw parsed();
        }

        @Override
        public String getSigAlgOID() {
            throw parsed();
        }

        @Override
        public byte[] getSigAlgParams() {
            throw parsed();
        }

        @Override
        public boolean[] getIssuerUniqueID() {
            throw parsed();
        }

        @Override
        public boolean[] getSubjectUniqueID() {
            throw parsed();
        }

        @Override
        public boolean[] getKeyUsage() {
            throw parsed();
        }

        @Override
        public List<String> getExtendedKeyUsage() {
            throw parsed();
        }

        @Override
        public Collection<List<?>> getSubjectAlternativeNames() {
            throw parsed();
        }

        @Override
        public int getBasicConstraints() {
            throw parsed();
        }

        @Override
        public void verify(PublicKey key) {
            throw parsed();
        }

        @Override
        public void verify(PublicKey key, String sigProvider) {
            throw parsed();
        }

        @Override
        public String toString() {
            return "DerOnly";
        }

        @Override
        public PublicKey getPublicKey() {
            throw parsed();
        }

        @Override
        public boolean hasUnsupportedCriticalExtension() {
            throw parsed();
        }

        @Override
        public Set<String> getCriticalExtensionOIDs() {
            throw parsed();
        }

        @Override
        public Set<String> getNonCriticalExtensionOIDs() {
            throw parsed();
        }

        @Override
        public byte[] getExtensionValue(String oid) {
            throw parsed();
        }
    }
}
