package io.mqttgw.core.tls;

import java.security.cert.CertificateException;

/**
 * Decodes the value of an ASN.1 string in a certificate's DER by the rules of its own type, for {@link IdentityDer}:
 * UTF8String as strict UTF-8 (no overlong forms, no surrogates), PrintableString only with the characters X.680 allows
 * it, IA5String as ASCII, BMPString as UCS-2 (UTF-16BE without surrogates: even length, characters of the BMP only),
 * UniversalString as UTF-32BE (Unicode scalar values only), TeletexString only when every byte is printable ASCII
 * (its T.61 repertoire is read differently by different readers); any other type is refused
 * ({@code bad_identity_encoding}). Stateless; any thread.
 */
final class DerStrings {
    private static final int UTF8_STRING = 0x0c;
    private static final int PRINTABLE_STRING = 0x13;
    private static final int TELETEX_STRING = 0x14;
    static final int IA5_STRING = 0x16;
    private static final int UNIVERSAL_STRING = 0x1c;
    private static final int BMP_STRING = 0x1e;

    private DerStrings() {
    }

    /** The value of a string of ASN.1 type {@code tag} at {@code [from, from + length)}; null when empty. */
    static String decode(byte[] der, int tag, int from, int length, String what) throws CertificateException {
        if (length == 0) {
            return null;
        }
        String value = switch (tag) {
            case UTF8_STRING -> utf8(der, from, length);
            case PRINTABLE_STRING -> ascii(der, from, length, DerStrings::printable);
            case IA5_STRING -> ascii(der, from, length, b -> b >= 0);
            case TELETEX_STRING -> ascii(der, from, length, b -> b >= 0x20 && b < 0x7f);
            case BMP_STRING -> ucs2(der, from, length);
            case UNIVERSAL_STRING -> utf32(der, from, length);
            default -> null;
        };
        if (value == null) {
            throw CertificateRefusals.badIdentityEncoding("the " + what + " is " + typeName(tag)
                    + (known(tag) ? " with bytes its type does not allow" : ", not a string type read here"));
        }
        return value;
    }

    private static boolean known(int tag) {
        return tag == UTF8_STRING || tag == PRINTABLE_STRING || tag == IA5_STRING || tag == TELETEX_STRING
                || tag == BMP_STRING || tag == UNIVERSAL_STRING;
    }

    private static String typeName(int tag) {
        return switch (tag) {
            case UTF8_STRING -> "a UTF8String";
            case PRINTABLE_STRING -> "a PrintableString";
            case IA5_STRING -> "an IA5String";
            case TELETEX_STRING -> "a TeletexString";
            case BMP_STRING -> "a BMPString";
            case UNIVERSAL_STRING -> "a UniversalString";
            default -> "of ASN.1 tag 0x" + Integer.toHexString(tag);
        };
    }

    private interface ByteRule {
        boolean allows(byte b);
    }

    /** X.680's PrintableString: letters, digits, space and {@code ' ( ) + , - . / : = ?}. */
    private static boolean printable(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == ' ' || b == '\''
                || b == '(' || b == ')' || b == '+' || b == ',' || b == '-' || b == '.' || b == '/' || b == ':'
                || b == '=' || b == '?';
    }

    private static String ascii(byte[] der, int from, int length, ByteRule rule) {
        for (int i = from; i < from + length; i++) {
            if (!rule.allows(der[i])) {
                return null;
            }
        }
        return new String(der, from, length, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Strict UTF-8: shortest forms only, no surrogate code points, nothing past U+10FFFF. */
    private static String utf8(byte[] der, int from, int length) {
        String ascii = ascii(der, from, length, b -> b >= 0);
        if (ascii != null) {
            return ascii;              // the common case, without the char[] of the general one
        }
        char[] out = new char[length];
        int n = 0;
        int end = from + length;
        for (int i = from; i < end; ) {
            int b = der[i++] & 0xff;
            int more;
            int cp;
            int min;
            if (b < 0x80) {
                out[n++] = (char) b;
                continue;
            } else if (b >= 0xc2 && b <= 0xdf) {
                more = 1;
                cp = b & 0x1f;
                min = 0x80;
            } else if (b >= 0xe0 && b <= 0xef) {
                more = 2;
                cp = b & 0x0f;
                min = 0x800;
            } else if (b >= 0xf0 && b <= 0xf4) {
                more = 3;
                cp = b & 0x07;
                min = 0x10000;
            } else {
                return null;
            }
            if (end - i < more) {
                return null;
            }
            for (int k = 0; k < more; k++) {
                int c = der[i++] & 0xff;
                if ((c & 0xc0) != 0x80) {
                    return null;
                }
                cp = cp << 6 | c & 0x3f;
            }
            if (cp < min || cp > 0x10ffff || cp >= 0xd800 && cp <= 0xdfff) {
                return null;
            }
            n += Character.toChars(cp, out, n);
        }
        return new String(out, 0, n);
    }

    /**
     * UCS-2 big-endian, as X.680 defines BMPString: an even number of bytes and no surrogates, paired or not (a pair
     * names a character outside the BMP, which the type cannot hold; OpenSSL 3 refuses to load such a certificate).
     */
    private static String ucs2(byte[] der, int from, int length) {
        if (length % 2 != 0) {
            return null;
        }
        char[] out = new char[length / 2];
        for (int k = 0; k < out.length; k++) {
            out[k] = (char) ((der[from + 2 * k] & 0xff) << 8 | der[from + 2 * k + 1] & 0xff);
            if (Character.isSurrogate(out[k])) {
                return null;
            }
        }
        return new String(out);
    }

    /** UTF-32BE: four bytes per code point, each a Unicode scalar value. */
    private static String utf32(byte[] der, int from, int length) {
        if (length % 4 != 0) {
            return null;
        }
        char[] out = new char[length / 2];
        int n = 0;
        for (int i = from; i < from + length; i += 4) {
            int cp = (der[i] & 0xff) << 24 | (der[i + 1] & 0xff) << 16 | (der[i + 2] & 0xff) << 8 | der[i + 3] & 0xff;
            if (cp < 0 || cp > 0x10ffff || cp >= 0xd800 && cp <= 0xdfff) {
                return null;
            }
            n += Character.toChars(cp, out, n);
        }
        return new String(out, 0, n);
    }
}
