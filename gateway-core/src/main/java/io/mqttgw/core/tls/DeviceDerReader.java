package io.mqttgw.core.tls;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * A cursor over a device certificate's DER for {@link CertificateDer} and {@link DeviceExtensionsDer}: reads tags,
 * definite lengths and validity times, and throws {@link IllegalArgumentException} on anything it does not expect
 * (the certificate then goes to the JDK's parse; {@link CertificateSyntax} has judged the shape before). One instance
 * per certificate read; confined to the thread that reads it.
 */
final class DeviceDerReader {
    private static final int UTC_TIME = 0x17;
    private static final int GENERALIZED_TIME = 0x18;

    final byte[] der;
    int at;

    DeviceDerReader(byte[] der) {
        this.der = der;
    }

    boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
    }

    /** A UTCTime (YYMMDDHHMMSSZ, years 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) as epoch milliseconds. */
    long time() {
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

    int digits(int from, int count) {
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

    int peek() {
        return der[at] & 0xff;
    }

    /** Steps into a constructed element of the given tag; returns where its content ends. */
    int enter(int tag) {
        int length = length(tag);
        return at + length;
    }

    /** Steps over the next element, whatever it is. */
    void skip() {
        int length = length(peek());
        at += length;
    }

    /** Reads the tag (which must be {@code tag}) and a definite DER length; leaves {@code at} on the content. */
    int length(int tag) {
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
