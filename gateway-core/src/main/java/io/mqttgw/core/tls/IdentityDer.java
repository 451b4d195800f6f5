package io.mqttgw.core.tls;

import java.security.cert.CertificateException;
import java.util.Arrays;

/**
 * Reads a device identity from DER by the rules of RFC 5280 and X.520, the one reading both the fast path
 * ({@link CertificateDer}) and the parsed path ({@link CertificateIdentities}) use, so they cannot disagree. The
 * JDK's {@code X500Principal.getName()} is not used: on JDK 17 it decodes BMPString and TeletexString bytes as UTF-8
 * and prints a value that is not a string as the name of a Java array, and its LDAP form hides which of several CNs
 * was taken.
 *
 * <p>A string is decoded by the rules of its own ASN.1 type: UTF8String as strict UTF-8 (no overlong forms, no
 * surrogates), PrintableString only with the characters X.680 allows it, IA5String as ASCII, BMPString as UCS-2
 * (UTF-16BE without surrogates: even length, characters of the BMP only), UniversalString as UTF-32BE (Unicode scalar
 * values only), TeletexString only when every byte is printable ASCII (its T.61 repertoire is read differently by
 * different readers). Any other type refuses the certificate ({@code bad_identity_encoding}), and so does more than one
 * value of the kind the identity is read from ({@code ambiguous_identity}): two CNs, whether in separate RDNs or one
 * multi-valued RDN, or two SAN entries of the configured kind. Stateless; any thread.
 */
final class IdentityDer {
    private static final int SEQUENCE = 0x30;
    private static final int SET = 0x31;
    private static final int OID = 0x06;
    private static final int OCTET_STRING = 0x04;
    private static final int UTF8_STRING = 0x0c;
    private static final int PRINTABLE_STRING = 0x13;
    private static final int TELETEX_STRING = 0x14;
    private static final int IA5_STRING = 0x16;
    private static final int UNIVERSAL_STRING = 0x1c;
    private static final int BMP_STRING = 0x1e;
    /** GeneralName's dNSName [2] and uniformResourceIdentifier [6], both IMPLICIT IA5String. */
    static final int SAN_DNS = 0x82;
    static final int SAN_URI = 0x86;
    /** 2.5.4.3, the common name's attribute type, as DER content bytes. */
    private static final byte[] CN = {0x55, 0x04, 0x03};

    private final byte[] der;
    private int at;

    private IdentityDer(byte[] der, int at) {
        this.der = der;
        this.at = at;
    }

    /**
     * The value of the subject's one CN, or null when it has none (or an empty one).
     *
     * @param der    holds the Name's DER (its tag and length included) at {@code [offset, end)}
     * @throws CertificateException a refusal of {@link CertificateRefusals}: more than one CN, a CN that is not a
     *                              string of the types read, or a Name that is not DER
     */
    static String commonName(byte[] der, int offset, int end) throws CertificateException {
        try {
            return new IdentityDer(der, offset).commonName(end);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException malformed) {
            throw CertificateRefusals.badIdentityEncoding("the subject is not a DER Name");
        }
    }

    /**
     * The one SAN entry of {@code type} ({@link #SAN_DNS} or {@link #SAN_URI}), or null when there is none.
     *
     * @param extensionValue the subjectAltName extension's value as {@code getExtensionValue} returns it (the
     *                       OCTET STRING that wraps GeneralNames)
     */
    static String subjectAltName(byte[] extensionValue, int type) throws CertificateException {
        try {
            return new IdentityDer(extensionValue, 0).subjectAltName(type);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException malformed) {
            throw CertificateRefusals.badIdentityEncoding("the subjectAltName is not DER GeneralNames");
        }
    }

    private String commonName(int end) throws CertificateException {
        int nameEnd = enter(SEQUENCE);
        if (nameEnd != end) {
            throw new IllegalArgumentException("name length");
        }
        int found = 0;
        int valueTag = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (at < nameEnd) {
            int rdnEnd = enter(SET);
            if (at == rdnEnd) {
                throw new IllegalArgumentException("empty RDN");
            }
            while (at < rdnEnd) {
                int attributeEnd = enter(SEQUENCE);
                int oidLength = length(OID);
                boolean cn = is(at, oidLength, CN);
                at += oidLength;
                int tag = peek();
                int length = length(tag);
                if (cn) {
                    found++;
                    valueTag = tag;
                    valueAt = at;
                    valueLength = length;
                }
                at += length;
                if (at != attributeEnd) {
                    throw new IllegalArgumentException("attribute length");
                }
            }
            if (at != rdnEnd) {
                throw new IllegalArgumentException("RDN length");
            }
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subject has " + found + " CNs");
        }
        return found == 0 ? null : string(valueTag, valueAt, valueLength, "CN");
    }

    private String subjectAltName(int type) throws CertificateException {
        int wrapped = enter(OCTET_STRING);
        int namesEnd = enter(SEQUENCE);
        if (namesEnd != wrapped || wrapped != der.length) {
            throw new IllegalArgumentException("extension length");
        }
        int found = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (at < namesEnd) {
            int tag = peek();
            int length = length(tag);
            if (tag == type) {
                found++;
                valueAt = at;
                valueLength = length;
            }
            at += length;
        }
        if (at != namesEnd) {
            throw new IllegalArgumentException("GeneralNames length");
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subjectAltName has " + found + " "
                    + (type == SAN_DNS ? "dNSNames" : "URIs"));
        }
        return found == 0 ? null : string(IA5_STRING, valueAt, valueLength, type == SAN_DNS ? "dNSName" : "URI");
    }

    /** The value of a string of ASN.1 type {@code tag} at {@code [from, from + length)}; null when empty. */
    private String string(int tag, int from, int length, String what) throws CertificateException {
        if (length == 0) {
            return null;
        }
        String value = switch (tag) {
            case UTF8_STRING -> utf8(from, length);
            case PRINTABLE_STRING -> ascii(from, length, IdentityDer::printable);
            case IA5_STRING -> ascii(from, length, b -> b >= 0);
            case TELETEX_STRING -> ascii(from, length, b -> b >= 0x20 && b < 0x7f);
            case BMP_STRING -> ucs2(from, length);
            case UNIVERSAL_STRING -> utf32(from, length);
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

    private String ascii(int from, int length, ByteRule rule) {
        for (int i = from; i < from + length; i++) {
            if (!rule.allows(der[i])) {
                return null;
            }
        }
        return new String(der, from, length, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Strict UTF-8: shortest forms only, no surrogate code points, nothing past U+10FFFF. */
    private String utf8(int from, int length) {
        String ascii = ascii(from, length, b -> b >= 0);
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
    private String ucs2(int from, int length) {
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
    private String utf32(int from, int length) {
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

    private boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
    }

    private int peek() {
        int tag = der[at] & 0xff;
        if ((tag & 0x1f) == 0x1f) {
            throw new IllegalArgumentException("multi-byte tag");
        }
        return tag;
    }

    /** Steps into a constructed element of the given tag; returns where its content ends. */
    private int enter(int tag) {
        int length = length(tag);
        return at + length;
    }

    /** Reads the tag (which must be {@code tag}) and a definite length; leaves {@code at} on the content. */
    private int length(int tag) {
        if ((der[at] & 0xff) != tag) {
            throw new IllegalArgumentException("tag");
        }
        at++;
        int length = DerLength.of(der, at);
        if (length == DerLength.NOT_DER) {
            throw new IllegalArgumentException("length");
        }
        at += DerLength.size(der, at);
        if (length > der.length - at) {
            throw new IllegalArgumentException("truncated");
        }
        return length;
    }
}
