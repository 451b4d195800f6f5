package io.mqttgw.core.tls;

import static io.mqttgw.core.tls.RawDer.algorithm;
import static io.mqttgw.core.tls.RawDer.ascii;
import static io.mqttgw.core.tls.RawDer.bool;
import static io.mqttgw.core.tls.RawDer.extension;
import static io.mqttgw.core.tls.RawDer.integer;
import static io.mqttgw.core.tls.RawDer.name;
import static io.mqttgw.core.tls.RawDer.oid;
import static io.mqttgw.core.tls.RawDer.rdn;
import static io.mqttgw.core.tls.RawDer.seq;
import static io.mqttgw.core.tls.RawDer.tlv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the shape check draws its lines: what RFC 5280 allows (and real CAs write) passes, what it forbids does not.
 * The signature is not checked here, so the certificates carry a dummy one.
 */
class CertificateSyntaxTest {
    private static final byte[] ALGORITHM = algorithm("1.2.840.10045.4.3.2", false);
    private static final byte[] NAME = name(List.of(rdn("2.5.4.3", 0x0c, "x")));
    private static final byte[] KEY = seq(seq(oid("1.2.840.10045.2.1"), oid("1.2.840.10045.3.1.7")),
            tlv(0x03, new byte[] {0, 4, 1, 2}));
    private static final byte[] SIGNATURE = tlv(0x03, new byte[] {0, 0x30, 0});

    private static byte[] certificate(byte[] version, byte[] validity, byte[] subject, byte[]... rest) {
        List<byte[]> tbs = new ArrayList<>(List.of(version, integer(BigInteger.TEN), ALGORITHM, NAME, validity,
                subject, KEY));
        tbs.addAll(List.of(rest));
        if (version.length == 0) {
            tbs.remove(0);
        }
        return seq(seq(tbs.toArray(new byte[0][])), ALGORITHM, SIGNATURE);
    }

    private static byte[] v3() {
        return tlv(0xa0, integer(BigInteger.TWO));
    }

    private static byte[] validity(String notBefore, int tag, String notAfter) {
        return seq(tlv(0x17, ascii(notBefore)), tlv(tag, ascii(notAfter)));
    }

    private static final byte[] VALIDITY = validity("260101000000Z", 0x17, "270101000000Z");

    @Test
    void passesWhatRfc5280Allows() {
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME)), "v3 without extensions");
        assertNull(CertificateSyntax.problem(certificate(new byte[0], VALIDITY, NAME)), "v1");
        assertNull(CertificateSyntax.problem(certificate(v3(), validity("260101000000Z", 0x18, "99991231235959Z"),
                NAME)), "GeneralizedTime from 2050 on (the 'no well-defined expiry' date)");
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, seq(),
                tlv(0xa3, seq(extension("2.5.29.17", true, seq(tlv(0x82, ascii("d.example")))))))),
                "empty subject with a critical SAN");
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, tlv(0x82, new byte[] {0, 1}))),
                "a subjectUniqueID alone");
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, tlv(0xa3, seq(
                seq(oid("2.5.29.37"), bool(false), tlv(0x04, seq(oid("1.3.6.1.5.5.7.3.2")))))))),
                "critical FALSE written out (DER forbids the default, but CAs write it and the JDK reads it)");
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, tlv(0xa3, seq(
                extension("2.5.29.19", true, seq(bool(true), integer(BigInteger.ZERO))),
                extension("2.5.29.15", true, tlv(0x03, new byte[] {0x01, 0x06})))))), "a CA's extensions");
    }

    @Test
    void refusesWhatRfc5280Forbids() {
        assertNotNull(CertificateSyntax.problem(certificate(v3(), validity("260101000000Z", 0x18, "20270101000000Z"),
                NAME)), "GeneralizedTime before 2050");
        assertNotNull(CertificateSyntax.problem(certificate(v3(), validity("2601010000Z", 0x17, "270101000000Z"),
                NAME)), "UTCTime without seconds");
        assertNotNull(CertificateSyntax.problem(certificate(v3(), validity("260230000000Z", 0x17, "270101000000Z"),
                NAME)), "30 February");
        assertNotNull(CertificateSyntax.problem(certificate(tlv(0xa0, integer(BigInteger.ZERO)), VALIDITY, NAME)),
                "v1 written out");
        assertNotNull(CertificateSyntax.problem(certificate(new byte[0], VALIDITY, NAME, tlv(0x82, new byte[] {0}))),
                "a unique identifier in v1");
        assertNotNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, seq(),
                tlv(0xa3, seq(extension("2.5.29.17", false, seq(tlv(0x82, ascii("d.example")))))))),
                "empty subject, SAN not critical");
        assertNotNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, tlv(0xa3, seq()))),
                "an empty extension list");
        assertNotNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, tlv(0xa3, seq(
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.2"), tlv(0x05, new byte[0]))))))),
                "an extended key usage with a NULL in it");
        byte[] good = certificate(v3(), VALIDITY, NAME);
        byte[] content = java.util.Arrays.copyOfRange(good, good[1] < 0 ? 2 + (good[1] & 0x7f) : 2, good.length);
        // the outer length in two bytes where one would do
        byte[] longForm = RawDer.concat(new byte[] {0x30, (byte) 0x82, (byte) (content.length >> 8),
                (byte) content.length}, content);
        assertEquals("certificate: not a definite, minimal DER length", CertificateSyntax.problem(longForm));
    }
}
