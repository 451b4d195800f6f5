package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.Algorithm;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** The signature check of {@link IssuerKey} must agree with the JDK's on every curve and key type it handles. */
class IssuerKeyTest {
    private static CertificateBuilder builder(Algorithm algorithm, String cn) {
        return new CertificateBuilder().algorithm(algorithm).subject("CN=" + cn)
                .notBefore(Instant.now().minus(1, ChronoUnit.HOURS)).notAfter(Instant.now().plus(1, ChronoUnit.DAYS));
    }

    private static X509Bundle ca(Algorithm algorithm, String cn) throws Exception {
        return builder(algorithm, cn).setIsCertificateAuthority(true).buildSelfSigned();
    }

    private static X509Certificate device(X509Bundle ca, Algorithm algorithm, String cn) throws Exception {
        return builder(algorithm, cn).buildIssuedBy(ca).getCertificate();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"ecp256", "ecp384", "rsa2048"})
    void acceptsWhatTheIssuerSignedAndNothingElse(Algorithm algorithm) throws Exception {
        X509Bundle ca = ca(algorithm, "ca");
        X509Bundle other = ca(algorithm, "ca");
        X509Certificate device = device(ca, Algorithm.ecp256, "dev-1");
        X509Certificate forged = device(other, Algorithm.ecp256, "dev-1");
        IssuerKey configured = IssuerKey.configured(ca.getCertificate().getPublicKey());
        IssuerKey sent = IssuerKey.sent(ca.getCertificate().getPublicKey());

        assertEquals(algorithm != Algorithm.rsa2048, configured.curveArithmetic(), "EC keys take the fast path");
        assertTrue(configured.verifies(device));
        assertTrue(sent.verifies(device));
        assertFalse(configured.verifies(forged), "same subject, signed by another key of the same kind");
        assertFalse(sent.verifies(forged));
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"ecp256", "ecp384", "rsa2048"})
    void refusesAnAlteredSignatureOrBody(Algorithm algorithm) throws Exception {
        X509Bundle ca = ca(algorithm, "ca");
        byte[] der = device(ca, Algorithm.ecp256, "dev-1").getEncoded();
        IssuerKey key = IssuerKey.configured(ca.getCertificate().getPublicKey());

        byte[] lastByte = der.clone();
        lastByte[lastByte.length - 1] ^= 0x01;
        assertFalse(key.verifies(parse(lastByte)), "a bit of the signature flipped");

        byte[] body = der.clone();
        int at = indexOf(body, "dev-1".getBytes(StandardCharsets.UTF_8));
        body[at + 4] = '2';
        assertFalse(key.verifies(parse(body)), "the subject changed to dev-2");
    }

    @Test
    void agreesWithTheJdkOnManyCertificatesFromSeveralThreads() throws Exception {
        X509Bundle ca = ca(Algorithm.ecp256, "ca");
        X509Bundle other = ca(Algorithm.ecp256, "other");
        List<X509Certificate> certificates = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            certificates.add(device(i % 3 == 0 ? other : ca, Algorithm.ecp256, "dev-" + i));
        }
        IssuerKey key = IssuerKey.configured(ca.getCertificate().getPublicKey());
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> agreed = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                agreed.add(threads.submit(() -> {
                    int same = 0;
                    for (X509Certificate c : certificates) {
                        boolean jdk;
                        try {
                            c.verify(ca.getCertificate().getPublicKey());
                            jdk = true;
                        } catch (Exception e) {
                            jdk = false;
                        }
                        same += jdk == key.verifies(c) ? 1 : 0;
                    }
                    return same;
                }));
            }
            for (Future<Integer> f : agreed) {
                assertEquals(certificates.size(), f.get());
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static X509Certificate parse(byte[] der) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = haystack.length - needle.length; i >= 0; i--) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
