package io.mqttgw.core.tls;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads the subject's common name and the notAfter date straight from a certificate's DER, for the common shape of a
 * device certificate, so that a resumed handshake (whose certificate was verified when its session began) needs no
 * parse at all: the JDK's parse, its X.500 name and the LDAP name the identity was read through were 3.4 % of a resumed
 * reconnect's CPU (async-profiler, issue 15).
 *
 * <p>Only the simple shape is read: single-valued RDNs, and a common name that is a UTF8String or PrintableString of
 * letters, digits and {@code - . _ : @}. Anything else (a multi-valued RDN, another string type, any other character,
 * an empty value, DER this reader does not expect) answers null, and the caller reads the certificate through the JDK
 * as before. That keeps the two readings from ever disagreeing: on the shapes read here both give the same answer
 * ({@code CertificateDerTest} holds them against each other), and every other shape takes the JDK's.
 *
 * <p>Stateless and allocation-light; any thread.
 */
final class CertificateDer {
    /** What a connection keeps of its certificate: the subject's most specific CN and notAfter (epoch ms). */
    record Facts(String commonName, long notAfterMillis) {
    }

    private static final int SEQUENCE = 0x30;
    private static final int SET = 0x31;
    private static final int OID = 0x06;
    private static final int UTF8_STRING = 0x0c;
    private static final int PRINTABLE_STRING = 0x13;
    private static final int UTC_TIME = 0x17;
    private static final int GENERALIZED_TIME = 0x18;
    private static final int EXPLICIT_VERSION = 0xa0;
    /** 2.5.4.3, the common name's attribute type, as DER content bytes. */
    private static final byte[] CN = {0x55, 0x04, 0x03};
    private static final int MAX_CN = 256;

    private final byte[] der;
    private int at;

    private CertificateDer(byte[] der) {
        this.der = der;
    }

    /** The facts of a certificate of the simple shape, or null: then read it through the JDK. */
    static Facts read(byte[] der) {
        try {
            return new CertificateDer(der).facts();
        } catch (RuntimeException unexpected) {
            return null;
        }
    }

    private Facts facts() {
        enter(SEQUENCE);                   // Certificate
        enter(SEQUENCE);                   // TBSCertificate
        if (peek() == EXPLICIT_VERSION) {
            skip();
        }
        skip();                            // serialNumber
        skip();                            // signature AlgorithmIdentifier
        skip();                            // issuer
        int validityEnd = enter(SEQUENCE);
        skip();                            // notBefore
        long notAfter = time();
        if (at != validityEnd) {
            return null;
        }
        String commonName = commonName();
        return commonName == null ? null : new Facts(commonName, notAfter);
    }

    /** The value of the last (most specific) CN in the subject, or null when the subject is not of the simple shape. */
    private String commonName() {
        int subjectEnd = enter(SEQUENCE);
        String found = null;
        while (at < subjectEnd) {
            int rdnEnd = enter(SET);
            int attributeEnd = enter(SEQUENCE);
            if (attributeEnd != rdnEnd) {
                return null;               // multi-valued RDN
            }
            int oidLength = length(OID);
            boolean isCn = oidLength == CN.length && der[at] == CN[0] && der[at + 1] == CN[1] && der[at + 2] == CN[2];
            at += oidLength;
            if (isCn) {
                found = plainString();
                if (found == null) {
                    return null;
                }
            } else {
                skip();
            }
            if (at != attributeEnd) {
                return null;
            }
        }
        return at == subjectEnd ? found : null;
    }

    private String plainString() {
        int tag = peek();
        if (tag != UTF8_STRING && tag != PRINTABLE_STRING) {
            return null;
        }
        int length = length(tag);
        if (length == 0 || length > MAX_CN) {
            return null;
        }
        for (int i = at; i < at + length; i++) {
            if (!plain(der[i])) {
                return null;
            }
        }
        String value = new String(der, at, length, StandardCharsets.US_ASCII);
        at += length;
        return value;
    }

    private static boolean plain(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '.'
                || b == '_' || b == ':' || b == '@';
    }

    /** A UTCTime (YYMMDDHHMMSSZ, years 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) as epoch milliseconds. */
    private long time() {
        int tag = peek();
        int length = length(tag);
        int year;
        int p = at;
        if (tag == UTC_TIME && length == 13) {
            int yy = digits(p, 2);
            year = yy < 50 ? 2000 + yy : 1900 + yy;
            p += 2;
        } else if (tag == GENERALIZED_TIME && length == 15) {
            year = digits(p, 4);
            p += 4;
        } else {
            throw new IllegalArgumentException("time");
        }
        if (der[p + 10] != 'Z') {
            throw new IllegalArgumentException("time zone");
        }
        LocalDateTime time = LocalDateTime.of(year, digits(p, 2), digits(p + 2, 2), digits(p + 4, 2),
                digits(p + 6, 2), digits(p + 8, 2));
        at += length;
        return time.toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    private int digits(int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            int d = der[i] - '0';
            if (d < 0 || d > 9) {
                throw new IllegalArgumentException("digit");
            }
            value = value * 10 + d;
        }
        return value;
    }

    private int peek() {
        return der[at] & 0xff;
    }

    /** Steps into a constructed element of the given tag; returns where its content ends. */
    private int enter(int tag) {
        int length = length(tag);
        return at + length;
    }

    /** Steps over the next element, whatever it is. */
    private void skip() {
        int length = length(peek());
        at += length;
    }

    /** Reads the tag (which must be {@code tag}) and a definite DER length; leaves {@code at} on the content. */
    private int length(int tag) {
        if ((der[at] & 0xff) != tag) {
            throw new IllegalArgumentException("tag");
        }
        at++;
        int first = der[at++] & 0xff;
        int length;
        if (first < 0x80) {
            length = first;
        } else {
            int bytes = first & 0x7f;
            if (bytes == 0 || bytes > 3) {
                throw new IllegalArgumentException("length");
            }
            length = 0;
            for (int i = 0; i < bytes; i++) {
                length = length << 8 | der[at++] & 0xff;
            }
        }
        if (length > der.length - at) {
            throw new IllegalArgumentException("truncated");
        }
        return length;
    }
}
