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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
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
 * The DER fast path ({@link CertificateDer#signed}) reads a device certificate's fields in the same walk that checks
 * its RFC 5280 shape. Each certificate here is signed for real and of the shape the fast path reads, but for one flaw
 * in a part the field reading alone steps over or reads without its bounds (a parent's length, a tag it skips, the
 * bytes after a value, a repeated extension far down the list): the walk must refuse it as the shape check alone
 * does, and read the well-formed one exactly.
 */
class SignedDerStrictnessTest {
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private static HandSignedCa ca;

    @BeforeAll
    static void authority() throws Exception {
        ca = HandSignedCa.create("CN=Walk Test CA", NOW);
    }

    /** The fields of a device certificate of the fast path's shape, well-formed until a test changes one. */
    private static final class Tbs {
        byte[] issuer = ca.issuer();
        byte[] validity = seq(utc(NOW.minus(1, ChronoUnit.HOURS)), utc(NOW.plus(1, ChronoUnit.DAYS)));
        byte[] subject = name(List.of(rdn("2.5.4.3", 0x0c, "device-1")));
        byte[] key = ca.deviceKey();
        List<byte[]> extensions = new ArrayList<>(List.of(
                extension("2.5.29.15", true, tlv(0x03, new byte[] {0x07, (byte) 0x80})),
                extension("2.5.29.37", false, seq(oid(CLIENT_AUTH)))));
        byte[] after = new byte[0];

        byte[] der() throws Exception {
            byte[] tbs = seq(tlv(0xa0, integer(BigInteger.TWO)), integer(BigInteger.valueOf(4711)),
                    algorithm(ECDSA_SHA256, false), issuer, validity, subject, key,
                    tlv(0xa3, seq(extensions.toArray(new byte[0][]))));
            return concat(ca.sign(tbs, algorithm(ECDSA_SHA256, false)), after);
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

    /** Seven extensions of distinct ids (an id-pe, private ones, one beyond 2.5.29.63), then {@code eighth}. */
    private static void eightExtensions(Tbs t, byte[] eighth) {
        t.extensions.add(extension("1.3.6.1.5.5.7.1.1", false, seq()));
        t.extensions.add(extension("1.3.6.1.4.1.99999.1", false, tlv(0x04, new byte[] {1})));
        t.extensions.add(extension("2.5.29.14", false, tlv(0x04, new byte[] {1, 2, 3, 4})));
        t.extensions.add(extension("2.5.29.100", false, tlv(0x05, new byte[0])));
        t.extensions.add(extension("1.3.6.1.4.1.99999.200", false, tlv(0x04, new byte[] {2})));
        t.extensions.add(eighth);
    }

    /** {@code der} with the byte at {@code at} replaced. */
    private static byte[] patched(byte[] der, int at, int value) {
        byte[] copy = der.clone();
        copy[at] = (byte) value;
        return copy;
    }

    static Stream<Arguments> malformed() {
        byte[] subjectSet = name(List.of(rdn("2.5.4.3", 0x0c, "device-1")));
        return Stream.of(
                Arguments.of("a byte after the certificate", device(t -> t.after = new byte[] {0})),
                Arguments.of("the issuer tagged as a SET", device(t -> t.issuer = patched(t.issuer, 0, 0x31))),
                Arguments.of("the subject tagged as a SET", device(t -> t.subject = patched(t.subject, 0, 0x31))),
                Arguments.of("the subject's RDN overrunning the subject into the key",
                        device(t -> t.subject = patched(subjectSet, 3, subjectSet[3] + 4))),
                Arguments.of("an attribute of the subject without a value", device(t -> t.subject = seq(tlv(0x31,
                        seq(oid("2.5.4.3")))))),
                Arguments.of("the public key bits as an OCTET STRING", device(t -> t.key = seq(
                        Arrays.copyOfRange(t.key, 2, 2 + 2 + t.key[3]), tlv(0x04, new byte[] {0, 4, 1, 2})))),
                Arguments.of("a NULL after the public key bits", device(t -> t.key = seq(
                        Arrays.copyOfRange(t.key, 2, t.key.length), new byte[] {0x05, 0x00}))),
                Arguments.of("a byte in the validity after notAfter", device(t -> t.validity = seq(
                        Arrays.copyOfRange(t.validity, 2, t.validity.length), new byte[] {0x05, 0x00}))),
                Arguments.of("a GeneralizedTime notAfter before 2050", device(t -> t.validity = seq(
                        utc(NOW.minus(1, ChronoUnit.HOURS)), tlv(0x18, ascii(DateTimeFormatter.ofPattern(
                                "yyyyMMddHHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC).format(NOW.plus(1,
                                ChronoUnit.DAYS))))))),
                Arguments.of("key usage bits overrunning their extension into the next one", device(t ->
                        t.extensions.set(0, extension("2.5.29.15", true, new byte[] {0x03, 0x03, 0x00,
                                (byte) 0x80})))),
                Arguments.of("key usage with an unused bit set", device(t ->
                        t.extensions.set(0, extension("2.5.29.15", true, tlv(0x03, new byte[] {0x07, (byte) 0x81}))))),
                Arguments.of("an extended key usage with a non-minimal id", device(t ->
                        t.extensions.set(1, extension("2.5.29.37", false, seq(tlv(0x06, new byte[] {0x2b, 0x06,
                                0x01, 0x05, 0x05, 0x07, 0x03, (byte) 0x80, 0x02})))))),
                Arguments.of("a non-critical basic constraints that is not a SEQUENCE", device(t ->
                        t.extensions.add(extension("2.5.29.19", false, new byte[] {0x05, 0x00})))),
                Arguments.of("a non-critical subject alternative name with an empty DNS name", device(t ->
                        t.extensions.add(extension("2.5.29.17", false, seq(tlv(0x82, new byte[0])))))),
                Arguments.of("key usage at positions 1 and 8", device(t -> eightExtensions(t,
                        extension("2.5.29.15", false, tlv(0x03, new byte[] {0x07, (byte) 0x80}))))),
                Arguments.of("an id-pe extension at positions 3 and 8", device(t -> eightExtensions(t,
                        extension("1.3.6.1.5.5.7.1.1", false, seq())))),
                Arguments.of("a private extension at positions 4 and 8", device(t -> eightExtensions(t,
                        extension("1.3.6.1.4.1.99999.1", false, tlv(0x04, new byte[] {3}))))),
                Arguments.of("2.5.29.100 at positions 6 and 8", device(t -> eightExtensions(t,
                        extension("2.5.29.100", false, tlv(0x05, new byte[0]))))),
                Arguments.of("the extended key usage at positions 2 and 8, critical the second time", device(t ->
                        eightExtensions(t, extension("2.5.29.37", true, seq(oid(CLIENT_AUTH)))))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void refusesInTheReadingWalkWhatTheShapeCheckRefuses(String what, byte[] der) {
        assertNotNull(CertificateSyntax.problem(der), "the shape check accepted " + what);
        assertNull(CertificateDer.signed(der), "the DER fast path read " + what);
    }

    @Test
    void readsTheWellFormedDeviceCertificateExactly() throws Exception {
        byte[] der = device(t -> { });
        assertNull(CertificateSyntax.problem(der));
        CertificateDer.Signed signed = CertificateDer.signed(der);
        assertNotNull(signed);
        java.security.cert.X509Certificate jdk = (java.security.cert.X509Certificate)
                java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificate(new java.io.ByteArrayInputStream(der));
        assertArrayEquals(jdk.getTBSCertificate(), Arrays.copyOfRange(der, signed.tbsOffset(),
                signed.tbsOffset() + signed.tbsLength()));
        assertArrayEquals(jdk.getIssuerX500Principal().getEncoded(), Arrays.copyOfRange(der, signed.issuerOffset(),
                signed.issuerOffset() + signed.issuerLength()));
        assertArrayEquals(jdk.getSignature(), signed.signature());
        assertEquals("SHA-256", signed.digest());
        assertEquals(jdk.getSerialNumber(), signed.serial());
        assertEquals(jdk.getNotBefore().getTime(), signed.notBeforeMillis());
        assertEquals(jdk.getNotAfter().getTime(), signed.notAfterMillis());
        assertTrue(signed.digitalSignature());
        assertTrue(signed.clientAuth());
    }

    @Test
    void readsEightDistinctExtensionsIncludingIdsThatShareALastArcModuloSixtyFour() {
        // 2.5.29.14 and 2.5.29.78, 2.5.29.15 and 2.5.29.79: distinct ids whatever a table of seen ids is indexed by
        byte[] der = device(t -> eightExtensions(t, extension("2.5.29.78", false, tlv(0x04, new byte[] {1}))));
        assertNull(CertificateSyntax.problem(der));
        assertNotNull(CertificateDer.signed(der));
        byte[] sameLowBits = device(t -> {
            eightExtensions(t, extension("2.5.29.79", false, tlv(0x04, new byte[] {1})));
            t.extensions.add(extension("1.3.6.1.5.5.7.1.65", false, tlv(0x04, new byte[] {1})));
            t.extensions.add(extension("1.3.6.1.4.1.99999.2", false, tlv(0x04, new byte[] {1})));
        });
        assertNull(CertificateSyntax.problem(sameLowBits));
        assertNotNull(CertificateDer.signed(sameLowBits));
    }

    @Test
    void readsTheUsagesTheExtensionsGrant() {
        CertificateDer.Signed agreementOnly = CertificateDer.signed(device(t -> t.extensions.set(0,
                extension("2.5.29.15", true, tlv(0x03, new byte[] {0x03, 0x08})))));
        assertNotNull(agreementOnly);
        assertFalse(agreementOnly.digitalSignature());
        assertTrue(agreementOnly.clientAuth());
        CertificateDer.Signed serverOnly = CertificateDer.signed(device(t -> t.extensions.set(1,
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))))));
        assertNotNull(serverOnly);
        assertTrue(serverOnly.digitalSignature());
        assertFalse(serverOnly.clientAuth());
        CertificateDer.Signed anyUsage = CertificateDer.signed(device(t -> t.extensions.set(1,
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"), oid("2.5.29.37.0"))))));
        assertNotNull(anyUsage);
        assertTrue(anyUsage.clientAuth());
    }

    @Test
    void leavesToTheParsedPathWhatItDoesNotRead() {
        assertNull(CertificateDer.signed(device(t -> t.extensions.set(0,
                extension("2.5.29.15", true, tlv(0x03, new byte[] {0x01, (byte) 0x86}))))), "keyCertSign");
        assertNull(CertificateDer.signed(device(t -> t.extensions.add(
                extension("1.3.6.1.4.1.99999.1", true, tlv(0x04, new byte[] {1}))))), "unknown critical");
        assertNull(CertificateDer.signed(device(t -> t.extensions.add(
                extension("2.5.29.17", false, seq(tlv(0x81, ascii("a@example.com"))))))), "an e-mail SAN");
        assertNull(CertificateDer.signed(device(t -> t.extensions.add(
                extension("2.5.29.30", false, seq(tlv(0xa0, seq(tlv(0x82, ascii("example.com"))))))))),
                "name constraints");
        assertNotNull(CertificateDer.signed(device(t -> t.extensions.add(
                extension("2.5.29.17", false, seq(tlv(0x82, ascii("d1.example.com")), tlv(0x87,
                        new byte[] {10, 0, 0, 1})))))), "plain DNS and IP names");
    }
}
