package io.mqttgw.core.tls;

/**
 * The length octets of a DER element, read the one way {@link StrictDerReader} reads them for every certificate
 * reader: definite, in the fewest octets, at most three of them (16 MiB, far above any certificate). Stateless.
 */
final class DerLength {
    /** What {@link #of} answers for length octets that are not DER, or that run past the end. */
    static final int NOT_DER = -1;

    private DerLength() {
    }

    /** The content length encoded at {@code at}, or {@link #NOT_DER}. */
    static int of(byte[] der, int at) {
        if (at >= der.length) {
            return NOT_DER;
        }
        int first = der[at] & 0xff;
        if (first < 0x80) {
            return first;
        }
        int octets = first & 0x7f;
        if (octets == 0 || octets > 3 || at + octets >= der.length || der[at + 1] == 0) {
            return NOT_DER;
        }
        int length = 0;
        for (int i = 1; i <= octets; i++) {
            length = length << 8 | der[at + i] & 0xff;
        }
        return length < 0x80 ? NOT_DER : length;
    }

    /** How many octets the length encoded at {@code at} takes (valid once {@link #of} answered a length). */
    static int size(byte[] der, int at) {
        int first = der[at] & 0xff;
        return first < 0x80 ? 1 : 1 + (first & 0x7f);
    }
}
