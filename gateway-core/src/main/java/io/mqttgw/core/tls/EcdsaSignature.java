package io.mqttgw.core.tls;

import java.math.BigInteger;

/**
 * An ECDSA signature's (r, s), read from its DER {@code ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }}, only
 * when the encoding is strict DER: definite minimal lengths, minimal positive integers, nothing after the sequence.
 * Anything else answers null, and the certificate's signature does not verify: a signature has one encoding, so a
 * second one is never accepted. Read by hand because BouncyCastle's parse and the re-encoding that checked it were a
 * kilobyte of garbage per full handshake and a noticeable share of the JIT's work in a cold ramp.
 * Stateless; any thread.
 *
 * @param r the first integer, positive
 * @param s the second integer, positive
 */
record EcdsaSignature(BigInteger r, BigInteger s) {
    private static final int SEQUENCE = 0x30;
    private static final int INTEGER = 0x02;

    /** (r, s) of a strict DER ECDSA signature; null for any other bytes. */
    static EcdsaSignature strictDer(byte[] der) {
        if (der == null || der.length < 8 || (der[0] & 0xff) != SEQUENCE) {
            return null;
        }
        int at = 1;
        int length = der[at++] & 0xff;
        if (length == 0x81) {
            // the long form only where the short one cannot say it (P-521 signatures)
            length = der[at++] & 0xff;
            if (length < 0x80) {
                return null;
            }
        } else if (length >= 0x80) {
            return null;
        }
        if (at + length != der.length) {
            return null;
        }
        int rLength = integerLength(der, at);
        if (rLength < 0) {
            return null;
        }
        int sAt = at + 2 + rLength;
        int sLength = integerLength(der, sAt);
        if (sLength < 0 || sAt + 2 + sLength != der.length) {
            return null;
        }
        return new EcdsaSignature(new BigInteger(1, der, at + 2, rLength), new BigInteger(1, der, sAt + 2, sLength));
    }

    /**
     * The content length of the positive, minimally encoded INTEGER at {@code at} (short-form length: no curve's
     * integer needs more than 127 bytes), or -1.
     */
    private static int integerLength(byte[] der, int at) {
        if (at + 2 > der.length || (der[at] & 0xff) != INTEGER) {
            return -1;
        }
        int length = der[at + 1] & 0xff;
        int first = at + 2;
        if (length == 0 || length >= 0x80 || first + length > der.length) {
            return -1;
        }
        if (der[first] < 0) {
            return -1;                     // negative
        }
        if (der[first] == 0 && (length == 1 || der[first + 1] >= 0)) {
            return -1;                     // zero, or a leading zero byte that is not needed
        }
        return length;
    }
}
