package io.mqttgw.core.tls;

import static io.mqttgw.core.tls.HandSignedCa.CLIENT_AUTH;
import static io.mqttgw.core.tls.HandSignedCa.ECDSA_SHA256;
import static io.mqttgw.core.tls.RawDer.algorithm;
import static io.mqttgw.core.tls.RawDer.ascii;
import static io.mqttgw.core.tls.RawDer.concat;
import static io.mqttgw.core.tls.RawDer.extension;
import static io.mqttgw.core.tls.RawDer.integer;
import static io.mqttgw.core.tls.RawDer.name;
import static io.mqttgw.core.tls.RawDer.oid;
import static io.mqttgw.core.tls.RawDer.rdn;
import static io.mqttgw.core.tls.RawDer.seq;
import static io.mqttgw.core.tls.RawDer.tlv;
import static io.mqttgw.core.tls.RawDer.utc;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCertificateException;
import io.netty.handler.ssl.util.LazyX509Certificate;
import io.netty.internal.tcnative.CertificateVerifier;
import java.math.BigInteger;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Certificates a configured CA signed but that are not of RFC 5280's shape, each as an attacker holding a signing
 * key (or a broken CA) would make it: the DER fast path must not accept any, and every verifier refuses each with a
 * checked refusal counted as {@code malformed_certificate} (the alert {@code bad_certificate}), never an unchecked
 * exception ({@code internal_error}, counted under no reason).
 */
class MalformedCertificateTest {
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static HandSignedCa ca;

    @BeforeAll
    static void authority() throws Exception {
        ca = HandSignedCa.create("CN=Malformed Test CA", NOW);
    }

    /** The fields of a device certificate, well-formed until a test changes one. */
    private static final class Tbs {
        byte[] version = tlv(0xa0, integer(BigInteger.TWO));
        byte[] algorithm = algorithm(ECDSA_SHA256, false);
        byte[] outerAlgorithm = algorithm;
        byte[] notBefore = utc(NOW.minus(1, ChronoUnit.HOURS));
        byte[] notAfter = utc(NOW.plus(1, ChronoUnit.DAYS));
        byte[] subject = name(List.of(rdn("2.5.4.3", 0x0c, "device-1")));
        List<byte[]> extensions = new ArrayList<>(List.of(extension("2.5.29.37", false, seq(oid(CLIENT_AUTH)))));

        byte[] der() throws Exception {
            List<byte[]> fields = new ArrayList<>();
            fields.add(version);
            fields.add(integer(BigInteger.valueOf(4711)));
            fields.add(algorithm);
            fields.add(ca.issuer());
            fields.add(seq(notBefore, notAfter));
            fields.add(subject);
            fields.add(ca.deviceKey());
            if (!extensions.isEmpty()) {
                fields.add(tlv(0xa3, seq(extensions.toArray(new byte[0][]))));
            }
            return ca.sign(seq(fields.toArray(new byte[0][])), outerAlgorithm);
        }
    }

    private static byte[] device(Consumer<Tbs> change) {
        Tbs tbs = new Tbs();
        change.accept(tbs);
        try {
            return tbs.der();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Arguments> malformed() {
        String hhmmss = DateTimeFormatter.ofPattern("yyMMddHHmmss", Locale.ROOT).withZone(ZoneOffset.UTC).format(NOW);
        return Stream.of(
                Arguments.of("critical basicConstraints that is not a SEQUENCE",
                        device(t -> t.extensions.add(extension("2.5.29.19", true, new byte[] {0x05, 0x00})))),
                Arguments.of("critical subjectAltName that is not a SEQUENCE",
                        device(t -> t.extensions.add(extension("2.5.29.17", true, tlv(0x04, ascii("d.example")))))),
                Arguments.of("extended key usage with trailing bytes",
                        device(t -> t.extensions.set(0, extension("2.5.29.37", false,
                                concat(seq(oid(CLIENT_AUTH)), new byte[] {0x05, 0x00}))))),
                Arguments.of("non-critical extended key usage serverAuth only, unparseable",
                        device(t -> t.extensions.set(0, extension("2.5.29.37", false,
                                concat(seq(oid(SERVER_AUTH)), new byte[] {0x05, 0x00}))))),
                Arguments.of("key usage with trailing bytes",
                        device(t -> t.extensions.add(extension("2.5.29.15", true,
                                concat(tlv(0x03, new byte[] {0x07, (byte) 0x80}), new byte[] {0x05, 0x00}))))),
                Arguments.of("non-critical key usage keyAgreement only, unparseable",
                        device(t -> t.extensions.add(extension("2.5.29.15", false,
                                concat(tlv(0x03, new byte[] {0x03, 0x08}), new byte[] {0x05, 0x00}))))),
                Arguments.of("subject that is not a Name", device(t -> t.subject = tlv(0x0c, ascii("device-1")))),
                Arguments.of("the same extension twice",
                        device(t -> t.extensions.add(t.extensions.get(0)))),
                Arguments.of("a private extension twice", device(t -> {
                    t.extensions.add(extension("1.3.6.1.4.1.99999.1", false, tlv(0x0c, ascii("a"))));
                    t.extensions.add(extension("1.3.6.1.4.1.99999.1", false, tlv(0x0c, ascii("b"))));
                })),
                Arguments.of("v1 with extensions", device(t -> t.version = new byte[0])),
                Arguments.of("v2 with extensions", device(t -> t.version = tlv(0xa0, integer(BigInteger.ONE)))),
                Arguments.of("outer signature algorithm not the signed one",
                        device(t -> t.outerAlgorithm = algorithm("1.2.840.10045.4.3.3", false))),
                Arguments.of("UTCTime without Z", device(t -> t.notBefore = tlv(0x17, ascii(hhmmss)))),
                Arguments.of("UTCTime with an offset", device(t -> t.notBefore = tlv(0x17, ascii(hhmmss + "+0000")))),
                Arguments.of("hour 24", device(t -> t.notBefore = tlv(0x17, ascii(hhmmss.substring(0,
                        6) + "240000Z")))),
                Arguments.of("GeneralizedTime before 2050",
                        device(t -> t.notBefore = tlv(0x18, ascii("20" + hhmmss + "Z")))),
                Arguments.of("empty subject, subjectAltName not critical", device(t -> {
                    t.subject = seq();
                    t.extensions.add(extension("2.5.29.17", false, seq(tlv(0x82, ascii("d.example")))));
                })),
                Arguments.of("an empty extension list", device(t -> {
                    t.extensions.clear();
                    t.extensions.add(new byte[0]);
                })));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void everyVerifierRefusesAMalformedCertificateAsMalformed(String what, byte[] der) throws Exception {
        List<X509Certificate> cas = List.of(ca.certificate());
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        assertNull(new LeanVerifier(cas, policy, 0, true).verifiedFromDer(der, NOW.toEpochMilli()),
                "the DER fast path accepted " + what);
        List<DeviceCertificateVerifier> verifiers = List.of(new LeanVerifier(cas, policy, 100, true),
                new LeanVerifier(cas, policy, 0, false), new PkixVerifier(cas, policy));
        for (DeviceCertificateVerifier verifier : verifiers) {
            DeviceTrustManager trust = new DeviceTrustManager(verifier, new CertificateIdentities("cn"),
                    new X509Certificate[0], NOW::toEpochMilli);
            CertificateException e = assertThrows(CertificateException.class, () -> trust.checkClientTrusted(
                    new X509Certificate[] {new LazyX509Certificate(der)}, "EC"), what + ": " + verifier);
            assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, TlsFailureReason.classify(e),
                    what + ", " + verifier.getClass().getSimpleName() + ": " + e.getMessage());
            if (OpenSsl.isAvailable()) {
                assertEquals(CertificateVerifier.X509_V_ERR_CERT_REJECTED,
                        ((OpenSslCertificateException) e).errorCode(),
                        "BoringSSL sends bad_certificate for this code");
            }
        }
    }

    @Test
    void theHandMadeDeviceCertificateIsAcceptedWhenWellFormed() throws Exception {
        byte[] der = device(t -> { });
        List<X509Certificate> cas = List.of(ca.certificate());
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        assertNotNull(new LeanVerifier(cas, policy, 0, true).verifiedFromDer(der, NOW.toEpochMilli()),
                "the fast path reads the well-formed certificate");
        for (DeviceCertificateVerifier verifier : List.of(new LeanVerifier(cas, policy, 0, false),
                new PkixVerifier(cas, policy))) {
            assertDoesNotThrow(() -> verifier.verify(new X509Certificate[] {new LazyX509Certificate(der)},
                    NOW.toEpochMilli()), verifier.toString());
        }
    }

    @Test
    void anUncheckedExceptionOfAVerifierLeavesTheTrustManagerAsAMalformedRefusal() {
        DeviceTrustManager trust = new DeviceTrustManager((chain, now) -> {
            throw new IllegalStateException("the JDK could not parse it");
        }, new CertificateIdentities("cn"), new X509Certificate[0], System::currentTimeMillis);
        CertificateException e = assertThrows(CertificateException.class, () -> trust.checkClientTrusted(
                new X509Certificate[] {ca.certificate()}, "EC"));
        assertEquals(TlsFailureReason.MALFORMED_CERTIFICATE, TlsFailureReason.classify(e));
    }
}
