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
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
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

    /** An extension list of {@code count} private extensions with distinct ids, then {@code more}. */
    private static byte[] extensions(int count, byte[]... more) {
        List<byte[]> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add(extension("1.3.6.1.4.1.99999." + i, false, tlv(0x04, new byte[] {1})));
        }
        list.addAll(List.of(more));
        return tlv(0xa3, seq(list.toArray(new byte[0][])));
    }

    @Test
    void refusesAnExtensionRepeatedAnywhereInTheList() {
        byte[] keyUsage = extension("2.5.29.15", true, tlv(0x03, new byte[] {0x07, (byte) 0x80}));
        byte[] firstAgain = extension("1.3.6.1.4.1.99999.0", false, tlv(0x04, new byte[] {2}));
        byte[] thirdAgain = extension("1.3.6.1.4.1.99999.2", false, tlv(0x04, new byte[] {2}));
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(5, keyUsage))));
        assertEquals("an extension appears twice",
                CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(5, keyUsage, firstAgain))),
                "the first one repeated last");
        assertEquals("an extension appears twice",
                CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(5, thirdAgain, keyUsage))),
                "one from the middle repeated");
        assertEquals("an extension appears twice",
                CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(0, keyUsage, keyUsage))),
                "two in a row");
        // an id that is a prefix of an earlier one is another extension
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(2,
                extension("1.3.6.1.4.1.99999", false, tlv(0x04, new byte[] {1}))))));
    }

    @Test
    void takesSixtyFourExtensionsAndRefusesMore() {
        assertNull(CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME, extensions(64))));
        assertEquals("too many extensions", CertificateSyntax.problem(certificate(v3(), VALIDITY, NAME,
                extensions(65))));
    }

    /**
     * The shape check runs on every full handshake; what it allocates is garbage a connect storm makes by the
     * thousand. It needs its cursor and nothing per extension: the bound is far above a cursor and the date checks'
     * temporaries, and below a table of the extension ids seen (two int[64], 544 bytes).
     */
    @Test
    void checksTheShapeWithoutATablePerCertificate() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        byte[] der = certificate(v3(), VALIDITY, NAME, extensions(3,
                extension("2.5.29.15", true, tlv(0x03, new byte[] {0x07, (byte) 0x80})),
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.2")))));
        assertNull(CertificateSyntax.problem(der));
        long thread = Thread.currentThread().getId();
        int checks = 2_000;
        long before = threads.getThreadAllocatedBytes(thread);
        int passed = 0;
        for (int i = 0; i < checks; i++) {
            passed += CertificateSyntax.problem(der) == null ? 1 : 0;
        }
        long perCheck = (threads.getThreadAllocatedBytes(thread) - before) / checks;
        assertEquals(checks, passed);
        assertTrue(perCheck < 400, perCheck + " bytes allocated per check");
    }
}
