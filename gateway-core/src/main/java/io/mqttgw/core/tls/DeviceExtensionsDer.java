package io.mqttgw.core.tls;

/**
 * What the lean verifier asks of a device certificate's extension values, answered for {@link ExtensionSyntax} as it
 * checks them: whether a critical extension is one both readings evaluate, whether an extended key usage purpose
 * allows clientAuth, and whether a DNS name is of the plain kind the JDK's parse reads too. Stateless; any thread.
 */
final class DeviceExtensionsDer {
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

    /** Whether the KeyPurposeId at {@code oid} is clientAuth or anyExtendedKeyUsage. */
    static boolean grantsClientAuth(StrictDerReader d, int oid, int oidLength) {
        return d.is(oid, oidLength, CLIENT_AUTH) || d.is(oid, oidLength, ANY_USAGE);
    }

    /**
     * Whether a DNS name is only letters, digits, hyphens and dots (no empty label, none starting or ending with a
     * hyphen): a name the JDK's parse reads too. The JDK refuses a whole certificate whose critical SAN it cannot
     * parse and drops a non-critical one, so any other name (and any other kind than DNS and IP) sends the
     * certificate to the parsed path, which refuses both.
     */
    static boolean plainDnsName(StrictDerReader d, int from, int length) {
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
