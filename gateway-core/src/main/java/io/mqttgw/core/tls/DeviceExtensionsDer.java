package io.mqttgw.core.tls;

import io.mqttgw.core.tls.StrictDerReader.Malformed;

/**
 * The extension values {@link CertificateDer} reads for the lean verifier from a device certificate's DER: whether a
 * critical extension is one both readings evaluate, the first byte of the key usage bits, whether the extended key
 * usage allows clientAuth, and whether the subject alternative names are all of the plain kinds the JDK's parse
 * reads too. Each throws on DER it does not expect, which sends the certificate to the parsed path. Stateless; any
 * thread.
 */
final class DeviceExtensionsDer {
    private static final int SEQUENCE = 0x30;
    private static final int BIT_STRING = 0x03;
    private static final int OID = 0x06;
    /** {@link CertificatePolicy#UNDERSTOOD_CRITICAL} as OID content bytes: one list for both readings. */
    private static final byte[][] UNDERSTOOD_CRITICAL = CertificatePolicy.UNDERSTOOD_CRITICAL.stream()
            .map(CertificateDer::oidContent).toArray(byte[][]::new);
    /** id-kp-clientAuth (1.3.6.1.5.5.7.3.2) and anyExtendedKeyUsage (2.5.29.37.0), content bytes. */
    private static final byte[] CLIENT_AUTH = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02};
    private static final byte[] ANY_USAGE = {0x55, 0x1d, 0x25, 0x00};

    private DeviceExtensionsDer() {
    }

    /** Whether the OID at {@code oid} is one of {@link CertificatePolicy#UNDERSTOOD_CRITICAL}. */
    static boolean understoodWhenCritical(StrictDerReader d, int oid, int oidLength) {
        for (byte[] understood : UNDERSTOOD_CRITICAL) {
            if (d.is(oid, oidLength, understood)) {
                return true;
            }
        }
        return false;
    }

    /** KeyUsage ::= BIT STRING; its first byte of bits (digitalSignature is bit 0, the high bit), 0 if none. */
    static int keyUsageFirstByte(StrictDerReader d) throws Malformed {
        int length = d.length(BIT_STRING, "key usage");
        if (length < 1 || d.der[d.at] < 0 || d.der[d.at] > 7) {
            throw new Malformed("key usage");
        }
        return length >= 2 ? d.der[d.at + 1] & 0xff : 0;
    }

    /** ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId. */
    static boolean extendedKeyUsageAllowsClientAuth(StrictDerReader d) throws Malformed {
        int end = d.enter(SEQUENCE, "extended key usage");
        boolean allowed = false;
        while (d.at < end) {
            int length = d.length(OID, "extended key usage");
            allowed |= d.is(d.at, length, CLIENT_AUTH) || d.is(d.at, length, ANY_USAGE);
            d.at += length;
        }
        if (d.at != end) {
            throw new Malformed("extended key usage");
        }
        return allowed;
    }

    /**
     * Whether the subject alternative names are only DNS names of letters, digits, hyphens and dots (no empty label,
     * none starting or ending with a hyphen) and IP addresses: names the JDK's parse reads too. The JDK refuses a
     * whole certificate whose critical SAN it cannot parse and drops a non-critical one, so any other name sends the
     * certificate to the parsed path, which refuses both.
     */
    static boolean plainAltNames(StrictDerReader d, int end) throws Malformed {
        int listEnd = d.enter(SEQUENCE, "subject alternative name");
        if (listEnd != end) {
            return false;
        }
        while (d.at < listEnd) {
            int tag = d.peek();
            int length = d.length(tag, "subject alternative name");
            if (tag == 0x87 ? length != 4 && length != 16 : tag != 0x82 || !plainDnsName(d, d.at, length)) {
                return false;
            }
            d.at += length;
        }
        return true;
    }

    private static boolean plainDnsName(StrictDerReader d, int from, int length) {
        if (length == 0 || length > 253) {
            return false;
        }
        int labelStart = from;
        for (int i = from; i <= from + length; i++) {
            if (i == from + length || d.der[i] == '.') {
                if (i == labelStart || d.der[labelStart] == '-' || d.der[i - 1] == '-') {
                    return false;
                }
                labelStart = i + 1;
            } else if (!(d.der[i] >= 'a' && d.der[i] <= 'z' || d.der[i] >= 'A' && d.der[i] <= 'Z'
                    || d.der[i] >= '0' && d.der[i] <= '9' || d.der[i] == '-')) {
                return false;
            }
        }
        return true;
    }
}
