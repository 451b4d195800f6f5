package io.mqttgw.core.tls;

import io.mqttgw.core.tls.StrictDerReader.Malformed;
import java.util.Arrays;

/**
 * The extensions part of {@link CertificateSyntax}: a non-empty extension list without a repeated extension, and the
 * value of every extension the verifiers evaluate (key usage, extended key usage, basic constraints, subject
 * alternative name) exactly of its ASN.1 type, critical or not, with nothing after it. What the values grant is kept
 * in the {@link CertificateWalk} as they are checked. Stateless; any thread.
 */
final class ExtensionSyntax {
    private static final byte[] KEY_USAGE = {0x55, 0x1d, 0x0f};
    private static final byte[] EXTENDED_KEY_USAGE = {0x55, 0x1d, 0x25};
    private static final byte[] BASIC_CONSTRAINTS = {0x55, 0x1d, 0x13};
    private static final byte[] SUBJECT_ALT_NAME = {0x55, 0x1d, 0x11};
    private static final byte[] NAME_CONSTRAINTS = {0x55, 0x1d, 0x1e};
    /** id-pe (1.3.6.1.5.5.7.1), content bytes: the PKIX private extensions (authority information access, ...). */
    private static final byte[] ID_PE = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01};
    private static final int MAX_EXTENSIONS = 64;

    private ExtensionSyntax() {
    }

    /** Checks the extension list, {@code at} on it; records what the extensions grant in {@code d}. */
    static void extensions(CertificateWalk d) throws Malformed {
        int listEnd = d.enter(0x30, "extensions");
        int listStart = d.at;
        if (d.at == listEnd) {
            throw new Malformed("empty extension list");
        }
        int count = 0;
        // RFC 5280's extensions are 2.5.29.n and the PKIX ones id-pe.n, n < 64: a bit per id finds a repeat of those
        // exactly, in one step, with no table per certificate (a device certificate has 4-8 extensions, nearly all of
        // these arcs); only an id outside them, such as a CA's private extension, is compared with the ids before it
        long seenCertificateArcs = 0;
        long seenPkixArcs = 0;
        while (d.at < listEnd) {
            if (count == MAX_EXTENSIONS) {
                throw new Malformed("too many extensions");
            }
            int extensionStart = d.at;
            int extensionEnd = d.enter(0x30, "extension");
            int oidLength = d.objectIdentifier("extension id");
            int oid = d.at - oidLength;
            int last = d.der[d.at - 1] & 0xff;                  // the last arc when under 128 (no high bit)
            boolean repeated;
            if (last < 64 && oidLength == 3 && d.der[oid] == 0x55 && d.der[oid + 1] == 0x1d) {
                repeated = (seenCertificateArcs & 1L << last) != 0;
                seenCertificateArcs |= 1L << last;
            } else if (last < 64 && oidLength == ID_PE.length + 1
                    && Arrays.equals(d.der, oid, oid + ID_PE.length, ID_PE, 0, ID_PE.length)) {
                repeated = (seenPkixArcs & 1L << last) != 0;
                seenPkixArcs |= 1L << last;
            } else {
                repeated = appearsBefore(d, listStart, extensionStart, oid, oidLength);
            }
            if (repeated) {
                throw new Malformed("an extension appears twice");
            }
            count++;
            boolean critical = false;
            if (d.peek() == 0x01) {
                d.bool("critical");
                critical = d.der[d.at - 1] != 0;
            }
            int valueEnd = d.enter(0x04, "extension value");
            if (valueEnd != extensionEnd) {
                throw new Malformed("unexpected bytes in an extension");
            }
            if (critical && !DeviceExtensionsDer.understoodWhenCritical(d, oid, oidLength)) {
                d.criticalNotUnderstood = true;
            }
            if (d.is(oid, oidLength, KEY_USAGE)) {
                keyUsage(d, valueEnd);
            } else if (d.is(oid, oidLength, EXTENDED_KEY_USAGE)) {
                extendedKeyUsage(d, valueEnd);
            } else if (d.is(oid, oidLength, BASIC_CONSTRAINTS)) {
                basicConstraints(d, valueEnd);
            } else if (d.is(oid, oidLength, SUBJECT_ALT_NAME)) {
                subjectAltName(d, valueEnd);
                d.criticalAltName = critical;
            } else if (d.is(oid, oidLength, NAME_CONSTRAINTS)) {
                d.nameConstraints = true;
            }
            d.at = valueEnd;
        }
        d.expectEnd(listEnd, "extensions");
    }

    /**
     * Whether an extension in {@code [from, to)}, already read, has the id {@code der[oid, oid + oidLength)}: for an
     * id outside the two arcs {@link #extensions} keeps as bits, rare in a device certificate. They are read again
     * rather than remembered: tables of offsets were two arrays per certificate checked, a cost on every handshake for
     * the rare certificate with many such extensions, whose count {@link #MAX_EXTENSIONS} bounds this work.
     */
    private static boolean appearsBefore(StrictDerReader d, int from, int to, int oid, int oidLength)
            throws Malformed {
        int resume = d.at;
        d.at = from;
        boolean seen = false;
        while (!seen && d.at < to) {
            int extensionEnd = d.enter(0x30, "extension");
            int length = d.objectIdentifier("extension id");
            seen = Arrays.equals(d.der, d.at - length, d.at, d.der, oid, oid + oidLength);
            d.at = extensionEnd;
        }
        d.at = resume;
        return seen;
    }

    /** KeyUsage ::= BIT STRING, at least one bit. */
    private static void keyUsage(CertificateWalk d, int end) throws Malformed {
        int length = d.length(0x03, "key usage");
        if (length < 2) {
            throw new Malformed("key usage without bits");
        }
        d.keyUsageBits = d.der[d.at + 1] & 0xff;
        d.bitStringContent(length, "key usage");
        d.expectEnd(end, "key usage");
    }

    /** ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId. */
    private static void extendedKeyUsage(CertificateWalk d, int end) throws Malformed {
        int listEnd = d.enter(0x30, "extended key usage");
        if (d.at == listEnd) {
            throw new Malformed("empty extended key usage");
        }
        boolean clientAuth = false;
        while (d.at < listEnd) {
            int length = d.objectIdentifier("extended key usage");
            clientAuth |= DeviceExtensionsDer.grantsClientAuth(d, d.at - length, length);
        }
        d.expectEnd(listEnd, "extended key usage");
        d.expectEnd(end, "extended key usage");
        d.clientAuth = clientAuth;
    }

    /** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }. */
    private static void basicConstraints(StrictDerReader d, int end) throws Malformed {
        int sequenceEnd = d.enter(0x30, "basic constraints");
        if (d.at < sequenceEnd && d.peek() == 0x01) {
            d.bool("basic constraints cA");
        }
        if (d.at < sequenceEnd) {
            if (d.peek() != 0x02 || (d.der[d.at + 2] & 0x80) != 0) {
                throw new Malformed("basic constraints path length");
            }
            d.integer("basic constraints path length");
        }
        d.expectEnd(sequenceEnd, "basic constraints");
        d.expectEnd(end, "basic constraints");
    }

    /** GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName, each of the nine choices in its own encoding. */
    private static void subjectAltName(CertificateWalk d, int end) throws Malformed {
        int listEnd = d.enter(0x30, "subject alternative name");
        if (d.at == listEnd) {
            throw new Malformed("empty subject alternative name");
        }
        boolean plain = true;
        while (d.at < listEnd) {
            int tag = d.peek();
            plain &= tag == 0x82 || tag == 0x87;
            switch (tag) {
                // otherName, x400Address, ediPartyName: not read by either verifier
                case 0xa0, 0xa3, 0xa5 -> d.skipContent(d.length(tag, "subject alternative name"));
                case 0x81, 0x82, 0x86 -> {
                    int length = d.length(tag, "subject alternative name");
                    plain &= tag != 0x82 || DeviceExtensionsDer.plainDnsName(d, d.at, length);
                    ia5(d, length);
                }
                case 0xa4 -> {
                    int nameEnd = d.enter(0xa4, "subject alternative name");
                    CertificateSyntax.name(d, "subject alternative directory name");
                    d.expectEnd(nameEnd, "subject alternative directory name");
                }
                case 0x87 -> {
                    int length = d.length(0x87, "subject alternative name");
                    if (length != 4 && length != 16) {
                        throw new Malformed("IP address of " + length + " bytes");
                    }
                    d.at += length;
                }
                case 0x88 -> {
                    d.oidContent(d.length(0x88, "registered id"), "registered id");
                }
                default -> throw new Malformed("subject alternative name of tag " + Integer.toHexString(tag));
            }
        }
        d.expectEnd(listEnd, "subject alternative name");
        d.expectEnd(end, "subject alternative name");
        d.plainAltNames = plain;
    }

    private static void ia5(StrictDerReader d, int length) throws Malformed {
        if (length == 0) {
            throw new Malformed("empty name in the subject alternative name");
        }
        for (int i = d.at; i < d.at + length; i++) {
            if (d.der[i] < 0x20 || d.der[i] == 0x7f) {        // negative: not ASCII
                throw new Malformed("subject alternative name is not IA5String");
            }
        }
        d.at += length;
    }
}
