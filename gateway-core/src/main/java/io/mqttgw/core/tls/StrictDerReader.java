package io.mqttgw.core.tls;

import java.util.Arrays;

/**
 * A cursor over a certificate's DER that reads its primitives strictly (definite, minimal lengths; minimal INTEGERs
 * and OBJECT IDENTIFIERs; DER BOOLEANs and BIT STRINGs) and says what is wrong with {@link Malformed}, for
 * {@link CertificateSyntax} and {@link ExtensionSyntax}. One instance per certificate read; confined to the thread
 * that reads it.
 */
final class StrictDerReader {
    /** Thrown inside the walk only; never leaves {@link CertificateSyntax#problem}. */
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
            skipContent(length(peek(), what));               // parameters, whatever they are
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
