package io.mqttgw.core.tls;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.util.Arrays;

/**
 * The shape RFC 5280 gives a certificate, checked on its DER before either verifier path reads a field of it, so that
 * the DER fast path and the parsed path refuse the same malformed certificates (the JDK's parse is lenient in places,
 * strict in others, and silently drops a non-critical extension it cannot parse: a usage restriction in it would be
 * ignored). Checked: DER lengths (definite, minimal); version, and extensions only in v3, unique identifiers not in
 * v1; a minimal, positive serial of at most 20 octets; the inner and outer signature algorithm identical; names as
 * sequences of non-empty sets of (type, value) pairs, the issuer not empty, an empty subject only with a critical
 * subject alternative name; validity times in the forms RFC 5280 4.1.2.5 allows (UTCTime YYMMDDHHMMSSZ,
 * GeneralizedTime YYYYMMDDHHMMSSZ from 2050 on, real calendar dates); a public key info of algorithm and bits; a
 * non-empty extension list without a repeated extension; and the value of every extension the verifiers evaluate
 * (key usage, extended key usage, basic constraints, subject alternative name) exactly of its ASN.1 type, critical
 * or not, with nothing after it. Stateless; any thread.
 */
final class CertificateSyntax {
    private static final byte[] KEY_USAGE = {0x55, 0x1d, 0x0f};
    private static final byte[] EXTENDED_KEY_USAGE = {0x55, 0x1d, 0x25};
    private static final byte[] BASIC_CONSTRAINTS = {0x55, 0x1d, 0x13};
    private static final byte[] SUBJECT_ALT_NAME = {0x55, 0x1d, 0x11};
    private static final int MAX_EXTENSIONS = 64;

    /** Thrown inside the walk only; never leaves this class. */
    private static final class Malformed extends Exception {
        Malformed(String what) {
            super(what, null, false, false);
        }
    }

    private final byte[] der;
    private int at;
    private boolean criticalAltName;

    private CertificateSyntax(byte[] der) {
        this.der = der;
    }

    /** Null for a certificate of RFC 5280's shape; otherwise what is wrong with it, in a few words. */
    static String problem(byte[] der) {
        if (der == null || der.length == 0) {
            return "empty certificate";
        }
        try {
            new CertificateSyntax(der).certificate();
            return null;
        } catch (Malformed e) {
            return e.getMessage();
        } catch (RuntimeException e) {
            return "truncated DER";
        }
    }

    private void certificate() throws Malformed {
        int end = enter(0x30, "certificate");
        if (end != der.length) {
            throw new Malformed("bytes after the certificate");
        }
        int tbsEnd = enter(0x30, "TBSCertificate");
        int version = 0;
        if (peek() == 0xa0) {
            int versionEnd = enter(0xa0, "version");
            version = smallInteger("version");
            if (at != versionEnd || version < 1 || version > 2) {
                throw new Malformed("version");
            }
        }
        serialNumber();
        int algorithmFrom = at;
        algorithmIdentifier("signature algorithm");
        int algorithmTo = at;
        if (name("issuer") == 0) {
            throw new Malformed("empty issuer");
        }
        int validityEnd = enter(0x30, "validity");
        time("notBefore");
        time("notAfter");
        expectEnd(validityEnd, "validity");
        boolean subjectEmpty = name("subject") == 0;
        int keyEnd = enter(0x30, "subject public key info");
        algorithmIdentifier("public key algorithm");
        bitString("public key");
        expectEnd(keyEnd, "subject public key info");
        for (int tag = 0x81; tag <= 0x82; tag++) {     // issuerUniqueID, subjectUniqueID: each optional
            if (at < tbsEnd && peek() == tag) {
                if (version < 1) {
                    throw new Malformed("unique identifier in a v1 certificate");
                }
                bitStringContent(length(tag, "unique identifier"), "unique identifier");
            }
        }
        if (at < tbsEnd && peek() == 0xa3) {
            if (version != 2) {
                throw new Malformed("extensions in a v" + (version + 1) + " certificate");
            }
            int extensionsEnd = enter(0xa3, "extensions");
            extensions();
            expectEnd(extensionsEnd, "extensions");
        }
        if (subjectEmpty && !criticalAltName) {
            // RFC 5280 4.1.2.6: the identity is then in the SAN, which must be critical (the JDK refuses it too)
            throw new Malformed("empty subject without a critical subject alternative name");
        }
        expectEnd(tbsEnd, "TBSCertificate");
        int outerFrom = at;
        algorithmIdentifier("signature algorithm");
        if (!Arrays.equals(der, algorithmFrom, algorithmTo, der, outerFrom, at)) {
            throw new Malformed("outer signature algorithm differs from the signed one");
        }
        bitString("signature");
        expectEnd(end, "certificate");
    }

    private void extensions() throws Malformed {
        int listEnd = enter(0x30, "extensions");
        if (at == listEnd) {
            throw new Malformed("empty extension list");
        }
        int[] oidOffsets = new int[MAX_EXTENSIONS];
        int[] oidLengths = new int[MAX_EXTENSIONS];
        int count = 0;
        while (at < listEnd) {
            if (count == MAX_EXTENSIONS) {
                throw new Malformed("too many extensions");
            }
            int extensionEnd = enter(0x30, "extension");
            int oidLength = objectIdentifier("extension id");
            int oid = at - oidLength;
            for (int i = 0; i < count; i++) {
                if (Arrays.equals(der, oid, oid + oidLength, der, oidOffsets[i], oidOffsets[i] + oidLengths[i])) {
                    throw new Malformed("an extension appears twice");
                }
            }
            oidOffsets[count] = oid;
            oidLengths[count++] = oidLength;
            boolean critical = false;
            if (peek() == 0x01) {
                bool("critical");
                critical = der[at - 1] != 0;
            }
            int valueEnd = enter(0x04, "extension value");
            if (valueEnd != extensionEnd) {
                throw new Malformed("unexpected bytes in an extension");
            }
            if (is(oid, oidLength, KEY_USAGE)) {
                keyUsage(valueEnd);
            } else if (is(oid, oidLength, EXTENDED_KEY_USAGE)) {
                extendedKeyUsage(valueEnd);
            } else if (is(oid, oidLength, BASIC_CONSTRAINTS)) {
                basicConstraints(valueEnd);
            } else if (is(oid, oidLength, SUBJECT_ALT_NAME)) {
                subjectAltName(valueEnd);
                criticalAltName = critical;
            }
            at = valueEnd;
        }
        expectEnd(listEnd, "extensions");
    }

    /** KeyUsage ::= BIT STRING, at least one bit. */
    private void keyUsage(int end) throws Malformed {
        int length = length(0x03, "key usage");
        if (length < 2) {
            throw new Malformed("key usage without bits");
        }
        bitStringContent(length, "key usage");
        expectEnd(end, "key usage");
    }

    /** ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId. */
    private void extendedKeyUsage(int end) throws Malformed {
        int listEnd = enter(0x30, "extended key usage");
        if (at == listEnd) {
            throw new Malformed("empty extended key usage");
        }
        while (at < listEnd) {
            objectIdentifier("extended key usage");
        }
        expectEnd(listEnd, "extended key usage");
        expectEnd(end, "extended key usage");
    }

    /** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }. */
    private void basicConstraints(int end) throws Malformed {
        int sequenceEnd = enter(0x30, "basic constraints");
        if (at < sequenceEnd && peek() == 0x01) {
            bool("basic constraints cA");
        }
        if (at < sequenceEnd) {
            if (peek() != 0x02 || (der[at + 2] & 0x80) != 0) {
                throw new Malformed("basic constraints path length");
            }
            integer("basic constraints path length");
        }
        expectEnd(sequenceEnd, "basic constraints");
        expectEnd(end, "basic constraints");
    }

    /** GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName, each of the nine choices in its own encoding. */
    private void subjectAltName(int end) throws Malformed {
        int listEnd = enter(0x30, "subject alternative name");
        if (at == listEnd) {
            throw new Malformed("empty subject alternative name");
        }
        while (at < listEnd) {
            int tag = peek();
            switch (tag) {
                case 0xa0, 0xa3, 0xa5 -> skipContent(length(tag, "subject alternative name"));  // otherName, x400, edi
                case 0x81, 0x82, 0x86 -> ia5(length(tag, "subject alternative name"));
                case 0xa4 -> {
                    int nameEnd = enter(0xa4, "subject alternative name");
                    name("subject alternative directory name");
                    expectEnd(nameEnd, "subject alternative directory name");
                }
                case 0x87 -> {
                    int length = length(0x87, "subject alternative name");
                    if (length != 4 && length != 16) {
                        throw new Malformed("IP address of " + length + " bytes");
                    }
                    at += length;
                }
                case 0x88 -> {
                    oidContent(length(0x88, "registered id"), "registered id");
                }
                default -> throw new Malformed("subject alternative name of tag " + Integer.toHexString(tag));
            }
        }
        expectEnd(listEnd, "subject alternative name");
        expectEnd(end, "subject alternative name");
    }

    private void ia5(int length) throws Malformed {
        if (length == 0) {
            throw new Malformed("empty name in the subject alternative name");
        }
        for (int i = at; i < at + length; i++) {
            if (der[i] < 0x20 || der[i] == 0x7f) {        // negative: not ASCII
                throw new Malformed("subject alternative name is not IA5String");
            }
        }
        at += length;
    }

    /** Name ::= SEQUENCE OF SET SIZE (1..MAX) OF SEQUENCE { type OID, value ANY }; returns the count of RDNs. */
    private int name(String what) throws Malformed {
        int end = enter(0x30, what);
        int rdns = 0;
        while (at < end) {
            int setEnd = enter(0x31, what);
            if (at == setEnd) {
                throw new Malformed("empty RDN in the " + what);
            }
            while (at < setEnd) {
                int attributeEnd = enter(0x30, what);
                objectIdentifier(what);
                if (at >= attributeEnd) {
                    throw new Malformed("attribute without a value in the " + what);
                }
                skipContent(length(peek(), what));
                expectEnd(attributeEnd, what);
            }
            expectEnd(setEnd, what);
            rdns++;
        }
        expectEnd(end, what);
        return rdns;
    }

    /** UTCTime YYMMDDHHMMSSZ or, from 2050, GeneralizedTime YYYYMMDDHHMMSSZ (RFC 5280 4.1.2.5). */
    private void time(String what) throws Malformed {
        int tag = peek();
        int length = length(tag, what);
        int year;
        int p = at;
        if (tag == 0x17 && length == 13) {
            int yy = digits(p, 2, what);
            year = yy < 50 ? 2000 + yy : 1900 + yy;
            p += 2;
        } else if (tag == 0x18 && length == 15) {
            year = digits(p, 4, what);
            if (year < 2050) {
                throw new Malformed(what + ": GeneralizedTime before 2050");
            }
            p += 4;
        } else {
            throw new Malformed(what + ": not YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ");
        }
        if (der[p + 10] != 'Z') {
            throw new Malformed(what + ": not in UTC (Z)");
        }
        try {
            LocalDateTime.of(year, digits(p, 2, what), digits(p + 2, 2, what), digits(p + 4, 2, what),
                    digits(p + 6, 2, what), digits(p + 8, 2, what));
        } catch (DateTimeException e) {
            throw new Malformed(what + ": no such date or time");
        }
        at += length;
    }

    private int digits(int from, int count, String what) throws Malformed {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            int d = der[i] - '0';
            if (d < 0 || d > 9) {
                throw new Malformed(what + ": not a digit");
            }
            value = value * 10 + d;
        }
        return value;
    }

    private void algorithmIdentifier(String what) throws Malformed {
        int end = enter(0x30, what);
        objectIdentifier(what);
        if (at < end) {
            skipContent(length(peek(), what));               // parameters, whatever they are
        }
        expectEnd(end, what);
    }

    private void bool(String what) throws Malformed {
        int length = length(0x01, what);
        if (length != 1 || der[at] != 0 && der[at] != (byte) 0xff) {
            throw new Malformed(what + ": not a DER BOOLEAN");
        }
        at++;
    }

    private void integer(String what) throws Malformed {
        int length = integerContent(what);
        at += length;
    }

    /**
     * RFC 5280 4.1.2.2 requires of a conforming CA a positive serial of at most 20 octets; the value's octets are
     * counted, not the sign byte DER puts before a value whose high bit is set. A CA that issues outside it is outside
     * the profile the verifiers were written for, and a serial is what revocation is looked up by.
     */
    private void serialNumber() throws Malformed {
        int length = integerContent("serial number");
        if (der[at] < 0) {
            throw new Malformed("negative serial number");
        }
        if (length == 1 && der[at] == 0) {
            throw new Malformed("serial number zero");
        }
        if (length - (der[at] == 0 ? 1 : 0) > 20) {
            throw new Malformed("serial number longer than 20 octets");
        }
        at += length;
    }

    /** The content length of a minimal INTEGER, {@code at} on its content. */
    private int integerContent(String what) throws Malformed {
        int length = length(0x02, what);
        if (length == 0 || length > 1 && (der[at] == 0 && der[at + 1] >= 0 || der[at] == -1 && der[at + 1] < 0)) {
            throw new Malformed(what + ": not a minimal INTEGER");
        }
        return length;
    }

    private int smallInteger(String what) throws Malformed {
        int length = length(0x02, what);
        if (length != 1) {
            throw new Malformed(what);
        }
        return der[at++];
    }

    private void bitString(String what) throws Malformed {
        bitStringContent(length(0x03, what), what);
    }

    private void bitStringContent(int length, String what) throws Malformed {
        if (length < 1) {
            throw new Malformed(what + ": empty BIT STRING");
        }
        int unused = der[at];
        if (unused < 0 || unused > 7 || length == 1 && unused != 0
                || length > 1 && (der[at + length - 1] & ((1 << unused) - 1)) != 0) {
            throw new Malformed(what + ": not a DER BIT STRING");
        }
        at += length;
    }

    /** Reads an OBJECT IDENTIFIER; returns its content length, {@code at} after it. */
    private int objectIdentifier(String what) throws Malformed {
        int length = length(0x06, what);
        oidContent(length, what);
        return length;
    }

    private void oidContent(int length, String what) throws Malformed {
        if (length == 0 || (der[at + length - 1] & 0x80) != 0) {
            throw new Malformed(what + ": malformed OBJECT IDENTIFIER");
        }
        for (int i = at; i < at + length; i++) {
            boolean arcStart = i == at || (der[i - 1] & 0x80) == 0;
            if (arcStart && (der[i] & 0xff) == 0x80) {
                throw new Malformed(what + ": OBJECT IDENTIFIER arc not minimal");
            }
        }
        at += length;
    }

    private void skipContent(int length) {
        at += length;
    }

    private boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
    }

    private void expectEnd(int end, String what) throws Malformed {
        if (at != end) {
            throw new Malformed("unexpected bytes in the " + what);
        }
    }

    private int peek() throws Malformed {
        if (at >= der.length) {
            throw new Malformed("truncated DER");
        }
        return der[at] & 0xff;
    }

    private int enter(int tag, String what) throws Malformed {
        int length = length(tag, what);
        return at + length;
    }

    /**
     * Reads the tag (which must be {@code tag}) and a definite, minimal DER length; leaves {@code at} on the content.
     */
    private int length(int tag, String what) throws Malformed {
        if (peek() != tag) {
            throw new Malformed(what + ": unexpected tag " + Integer.toHexString(peek()));
        }
        at++;
        int length = DerLength.of(der, at);
        if (length == DerLength.NOT_DER) {
            throw new Malformed(what + ": not a definite, minimal DER length");
        }
        at += DerLength.size(der, at);
        if (length > der.length - at) {
            throw new Malformed(what + ": truncated");
        }
        return length;
    }
}
