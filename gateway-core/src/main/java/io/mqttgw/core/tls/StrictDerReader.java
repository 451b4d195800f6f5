package io.mqttgw.core.tls;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * A cursor over a certificate's DER that reads its primitives strictly (definite, minimal lengths, never past the
 * end; minimal INTEGERs and OBJECT IDENTIFIERs; DER BOOLEANs and BIT STRINGs; validity times) and says what is wrong
 * with {@link Malformed}: the one DER reading of {@link CertificateSyntax}, {@link ExtensionSyntax},
 * {@link CertificateDer} (with {@link DeviceExtensionsDer}) and {@link IdentityDer}, so the shape check, the fast path
 * and the identity cannot read a length differently ({@link CertificateWalk} extends it to keep what the shape check
 * saw). One instance per certificate read; confined to the thread that reads it.
 */
class StrictDerReader {
    /** Thrown inside a walk only; each reader's entry point turns it into its own answer (problem, null, refusal). */
    static final class Malformed extends Exception {
        Malformed(String what) {
            super(what, null, false, false);
        }
    }

    final byte[] der;
    int at;

    StrictDerReader(byte[] der) {
        this.der = der;
    }

    int digits(int from, int count, String what) throws Malformed {
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

    void algorithmIdentifier(String what) throws Malformed {
        int end = enter(0x30, what);
        objectIdentifier(what);
        if (at < end) {
            skip(what);                                      // parameters, whatever they are
        }
        expectEnd(end, what);
    }

    void bool(String what) throws Malformed {
        int length = length(0x01, what);
        if (length != 1 || der[at] != 0 && der[at] != (byte) 0xff) {
            throw new Malformed(what + ": not a DER BOOLEAN");
        }
        at++;
    }

    void integer(String what) throws Malformed {
        int length = integerContent(what);
        at += length;
    }

    /** The content length of a minimal INTEGER, {@code at} on its content. */
    int integerContent(String what) throws Malformed {
        int length = length(0x02, what);
        if (length == 0 || length > 1 && (der[at] == 0 && der[at + 1] >= 0 || der[at] == -1 && der[at + 1] < 0)) {
            throw new Malformed(what + ": not a minimal INTEGER");
        }
        return length;
    }

    int smallInteger(String what) throws Malformed {
        int length = length(0x02, what);
        if (length != 1) {
            throw new Malformed(what);
        }
        return der[at++];
    }

    void bitString(String what) throws Malformed {
        bitStringContent(length(0x03, what), what);
    }

    void bitStringContent(int length, String what) throws Malformed {
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
    int objectIdentifier(String what) throws Malformed {
        int length = length(0x06, what);
        oidContent(length, what);
        return length;
    }

    void oidContent(int length, String what) throws Malformed {
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

    void skipContent(int length) {
        at += length;
    }

    /** Steps over the next element, whatever its tag. */
    void skip(String what) throws Malformed {
        int length = length(peek(), what);             // not at += length(...): that adds to the old at
        at += length;
    }

    /**
     * A UTCTime (YYMMDDHHMMSSZ, years 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) of a real date and time, as
     * epoch milliseconds; with {@code from2050}, a GeneralizedTime only from 2050 on, as RFC 5280 4.1.2.5 requires.
     */
    long time(String what, boolean from2050) throws Malformed {
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
            if (from2050 && year < 2050) {
                throw new Malformed(what + ": GeneralizedTime before 2050");
            }
            p += 4;
        } else {
            throw new Malformed(what + ": not YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ");
        }
        if (der[p + 10] != 'Z') {
            throw new Malformed(what + ": not in UTC (Z)");
        }
        long seconds;
        try {
            // toEpochSecond, not toInstant: nothing allocated past the date and time themselves
            seconds = LocalDateTime.of(year, digits(p, 2, what), digits(p + 2, 2, what), digits(p + 4, 2, what),
                    digits(p + 6, 2, what), digits(p + 8, 2, what)).toEpochSecond(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            throw new Malformed(what + ": no such date or time");
        }
        at += length;
        return seconds * 1000;
    }

    boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
    }

    void expectEnd(int end, String what) throws Malformed {
        if (at != end) {
            throw new Malformed("unexpected bytes in the " + what);
        }
    }

    int peek() throws Malformed {
        if (at >= der.length) {
            throw new Malformed("truncated DER");
        }
        return der[at] & 0xff;
    }

    int enter(int tag, String what) throws Malformed {
        int length = length(tag, what);
        return at + length;
    }

    /**
     * Reads the tag (which must be {@code tag}) and a definite, minimal DER length; leaves {@code at} on the content.
     */
    int length(int tag, String what) throws Malformed {
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
