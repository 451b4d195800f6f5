package io.mqttgw.core.tls;

import io.mqttgw.core.tls.StrictDerReader.Malformed;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Reads what the gateway needs from a device certificate straight from its DER, for the common shape of a device
 * certificate, so that neither the verifier nor the identity needs the JDK's parse: {@link #read} gives the subject's
 * common name and notAfter (all a resumed handshake needs; the JDK's parse, its X.500 name and the LDAP name the
 * identity was read through were 3.4 % of a resumed reconnect's CPU), {@link #signed} what the lean verifier checks
 * (the JDK's parse of an unknown certificate was 3-5 % of a full handshake's CPU and a sixth of its garbage;
 * async-profiler).
 *
 * <p>The name is read by {@link IdentityDer}, the parsed path's own reading. Only the simple shape is read for the
 * verifier: a v3 certificate signed with ECDSA and SHA-256/384/512, of RFC 5280's shape ({@link CertificateSyntax},
 * which the parsed path requires too), no unique identifiers, no critical extension the lean verifier does not
 * evaluate, subject alternative names only plain DNS names and IP addresses. Anything else (a subject without a CN
 * or with one the identity rules refuse, DER this reader does not expect) answers null, and the caller reads the
 * certificate through the JDK as before. That keeps the two readings from ever disagreeing: on the shapes read here
 * both give the same answer ({@code CertificateDerTest}, {@code DeviceCertificateVerifierTest}), and every other
 * shape takes the JDK's.
 *
 * <p>The DER is walked with a {@link StrictDerReader}; the extension values are read by {@link DeviceExtensionsDer}.
 * Stateless and allocation-light; any thread.
 */
final class CertificateDer {
    /** What a connection keeps of its certificate: the subject's one CN and notAfter (epoch ms). */
    record Facts(String commonName, long notAfterMillis) {
    }

    /**
     * What the lean verifier checks of a device certificate. The to-be-signed part and the issuer are ranges of the
     * DER; {@code digest} is the JDK name of the ECDSA signature's digest; {@code signature} the DER ECDSA-Sig-Value.
     * {@code digitalSignature} and {@code clientAuth} are false only when a key usage or extended key usage extension
     * is present and leaves them out.
     */
    record Signed(byte[] der, int tbsOffset, int tbsLength, int issuerOffset, int issuerLength, String digest,
                  byte[] signature, BigInteger serial, long notBeforeMillis, long notAfterMillis,
                  boolean digitalSignature, boolean clientAuth) {
    }

    /** What a {@link Malformed} of this reading names; never shown: the certificate then takes the JDK's parse. */
    private static final String WHAT = "certificate";
    private static final int SEQUENCE = 0x30;
    private static final int BOOLEAN = 0x01;
    private static final int INTEGER = 0x02;
    private static final int BIT_STRING = 0x03;
    private static final int OCTET_STRING = 0x04;
    private static final int EXPLICIT_EXTENSIONS = 0xa3;
    private static final int OID = 0x06;
    private static final int EXPLICIT_VERSION = 0xa0;
    /** ecdsa-with-SHA256/384/512 (1.2.840.10045.4.3.2-4) as DER content bytes, but for the last byte. */
    private static final byte[] ECDSA_WITH = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03};
    /** Key usage (2.5.29.15) and extended key usage (2.5.29.37), content bytes. */
    private static final byte[] KEY_USAGE = {0x55, 0x1d, 0x0f};
    private static final byte[] EXTENDED_KEY_USAGE = {0x55, 0x1d, 0x25};
    /** Subject alternative name (2.5.29.17), content bytes. */
    private static final byte[] SUBJECT_ALT_NAME = {0x55, 0x1d, 0x11};
    /** Name constraints (2.5.29.30), content bytes: in a device certificate, the parsed path refuses it. */
    private static final byte[] NAME_CONSTRAINTS = {0x55, 0x1d, 0x1e};
    /** keyCertSign and cRLSign in the first byte of the key usage bits: the parsed path decides such a certificate. */
    private static final int SIGNS_FOR_OTHERS = 0x04 | 0x02;
    /**
     * The AlgorithmIdentifiers of the device keys {@link KeyFloor} allows that this reading accepts: id-ecPublicKey
     * with the named curve P-256, P-384 or P-521, whole DER.
     */
    private static final byte[][] EC_KEY_ALGORITHMS = {
        {0x30, 0x13, 0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01,
            0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x03, 0x01, 0x07},
        {0x30, 0x10, 0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01,
            0x06, 0x05, 0x2b, (byte) 0x81, 0x04, 0x00, 0x22},
        {0x30, 0x10, 0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01,
            0x06, 0x05, 0x2b, (byte) 0x81, 0x04, 0x00, 0x23}};

    private CertificateDer() {
    }

    /** The facts of a certificate of the simple shape, or null: then read it through the JDK. */
    static Facts read(byte[] der) {
        try {
            return facts(new StrictDerReader(der));
        } catch (RuntimeException | Malformed unexpected) {
            return null;
        }
    }

    /** What the lean verifier checks, for a certificate of the simple shape, or null: then read it through the JDK. */
    static Signed signed(byte[] der) {
        try {
            // the shape both paths require first: the parsed path refuses what fails it, so this one must not accept
            return CertificateSyntax.problem(der) != null ? null : signedFields(new StrictDerReader(der));
        } catch (RuntimeException | Malformed unexpected) {
            return null;
        }
    }

    private static Signed signedFields(StrictDerReader d) throws Malformed {
        int certificateEnd = d.enter(SEQUENCE, WHAT);
        int tbsOffset = d.at;
        int tbsEnd = d.enter(SEQUENCE, WHAT);
        int tbsLength = tbsEnd - tbsOffset;
        if (d.peek() != EXPLICIT_VERSION) {
            return null;                   // v1: the JDK's
        }
        int versionEnd = d.enter(EXPLICIT_VERSION, WHAT);
        if (d.length(INTEGER, WHAT) != 1 || d.der[d.at++] != 2 || d.at != versionEnd) {
            return null;
        }
        int serialLength = d.length(INTEGER, WHAT);
        BigInteger serial = new BigInteger(d.der, d.at, serialLength);
        d.at += serialLength;
        int algorithmOffset = d.at;
        String digest = ecdsaDigest(d);
        int algorithmLength = d.at - algorithmOffset;
        if (digest == null) {
            return null;
        }
        int issuerOffset = d.at;
        d.skip(WHAT);
        int issuerLength = d.at - issuerOffset;
        int validityEnd = d.enter(SEQUENCE, WHAT);
        long notBefore = d.time(WHAT, false);
        long notAfter = d.time(WHAT, false);
        if (d.at != validityEnd) {
            return null;
        }
        d.skip(WHAT);                      // subject
        int keyEnd = d.enter(SEQUENCE, WHAT);      // subjectPublicKeyInfo
        int keyAlgorithm = d.at;
        d.skip(WHAT);
        if (!strongEcKey(d, keyAlgorithm, d.at)) {
            return null;                   // RSA, Ed25519, or a key under the floor: the parsed path decides
        }
        d.at = keyEnd;
        boolean digitalSignature = true;
        boolean clientAuth = true;
        if (d.at < tbsEnd) {
            int extensionsEnd = d.enter(EXPLICIT_EXTENSIONS, WHAT);
            int listEnd = d.enter(SEQUENCE, WHAT);
            boolean sawKeyUsage = false;
            boolean sawExtendedKeyUsage = false;
            while (d.at < listEnd) {
                int extensionEnd = d.enter(SEQUENCE, WHAT);
                int oidLength = d.length(OID, WHAT);
                int oid = d.at;
                d.at += oidLength;
                boolean critical = false;
                if (d.peek() == BOOLEAN) {
                    if (d.length(BOOLEAN, WHAT) != 1) {
                        return null;
                    }
                    critical = d.der[d.at++] != 0;
                }
                int valueLength = d.length(OCTET_STRING, WHAT);
                if (d.at + valueLength != extensionEnd) {
                    return null;
                }
                if (critical && !DeviceExtensionsDer.understoodWhenCritical(d, oid, oidLength)) {
                    return null;               // the parsed path refuses it and names the extension
                }
                if (d.is(oid, oidLength, KEY_USAGE)) {
                    if (sawKeyUsage) {
                        return null;
                    }
                    sawKeyUsage = true;
                    int bits = DeviceExtensionsDer.keyUsageFirstByte(d);
                    if ((bits & SIGNS_FOR_OTHERS) != 0) {
                        return null;
                    }
                    digitalSignature = (bits & 0x80) != 0;
                } else if (d.is(oid, oidLength, EXTENDED_KEY_USAGE)) {
                    if (sawExtendedKeyUsage) {
                        return null;
                    }
                    sawExtendedKeyUsage = true;
                    clientAuth = DeviceExtensionsDer.extendedKeyUsageAllowsClientAuth(d);
                } else if (d.is(oid, oidLength, SUBJECT_ALT_NAME)
                        && !DeviceExtensionsDer.plainAltNames(d, extensionEnd)) {
                    return null;                   // the JDK's parse decides on a name it may not read
                } else if (d.is(oid, oidLength, NAME_CONSTRAINTS)) {
                    return null;
                }
                d.at = extensionEnd;
            }
            if (d.at != extensionsEnd) {
                return null;
            }
        }
        if (d.at != tbsEnd) {
            return null;                   // unique identifiers, or anything else after the key: the JDK's
        }
        // the outer signature algorithm must be the one the issuer signed inside the TBS
        if (!Arrays.equals(d.der, d.at, d.at + algorithmLength, d.der, algorithmOffset,
                algorithmOffset + algorithmLength)) {
            return null;
        }
        d.at += algorithmLength;
        int bitsLength = d.length(BIT_STRING, WHAT);
        if (bitsLength < 2 || d.der[d.at] != 0) {
            return null;
        }
        byte[] signature = Arrays.copyOfRange(d.der, d.at + 1, d.at + bitsLength);
        d.at += bitsLength;
        if (d.at != certificateEnd || d.at != d.der.length) {
            return null;
        }
        return new Signed(d.der, tbsOffset, tbsLength, issuerOffset, issuerLength, digest, signature, serial, notBefore,
                notAfter, digitalSignature, clientAuth);
    }

    /** Whether {@code der[from, to)} is the AlgorithmIdentifier of an EC key on P-256, P-384 or P-521. */
    private static boolean strongEcKey(StrictDerReader d, int from, int to) {
        for (byte[] allowed : EC_KEY_ALGORITHMS) {
            if (Arrays.equals(d.der, from, to, allowed, 0, allowed.length)) {
                return true;
            }
        }
        return false;
    }

    /** The digest of an ECDSA AlgorithmIdentifier without parameters, or null for any other algorithm. */
    private static String ecdsaDigest(StrictDerReader d) throws Malformed {
        int end = d.enter(SEQUENCE, WHAT);
        int oidLength = d.length(OID, WHAT);
        if (oidLength != ECDSA_WITH.length + 1 || !Arrays.equals(d.der, d.at, d.at + ECDSA_WITH.length, ECDSA_WITH, 0,
                ECDSA_WITH.length)) {
            return null;
        }
        int last = d.der[d.at + ECDSA_WITH.length];
        d.at += oidLength;
        if (d.at != end) {
            return null;                   // parameters
        }
        return switch (last) {
            case 2 -> "SHA-256";
            case 3 -> "SHA-384";
            case 4 -> "SHA-512";
            default -> null;
        };
    }

    /** The DER content bytes of a dotted OID: the first two arcs as 40 x a + b, every arc base 128, high bit = more. */
    static byte[] oidContent(String dotted) {
        String[] arcs = dotted.split("\\.");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 1; i < arcs.length; i++) {
            long arc = i == 1 ? 40L * Long.parseLong(arcs[0]) + Long.parseLong(arcs[1]) : Long.parseLong(arcs[i]);
            int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(arc) + 6) / 7);
            for (int g = groups - 1; g >= 0; g--) {
                out.write((int) (arc >>> (7 * g) & 0x7f) | (g > 0 ? 0x80 : 0));
            }
        }
        return out.toByteArray();
    }

    private static Facts facts(StrictDerReader d) throws Malformed {
        d.enter(SEQUENCE, WHAT);                   // Certificate
        d.enter(SEQUENCE, WHAT);                   // TBSCertificate
        if (d.peek() == EXPLICIT_VERSION) {
            d.skip(WHAT);
        }
        d.skip(WHAT);                      // serialNumber
        d.skip(WHAT);                      // signature AlgorithmIdentifier
        d.skip(WHAT);                      // issuer
        int validityEnd = d.enter(SEQUENCE, WHAT);
        d.skip(WHAT);                      // notBefore
        long notAfter = d.time(WHAT, false);
        if (d.at != validityEnd) {
            return null;
        }
        String commonName = commonName(d);
        return commonName == null ? null : new Facts(commonName, notAfter);
    }

    /**
     * The subject's CN read by {@link IdentityDer}, the same reading as the parsed path's; null when there is none or
     * the certificate is refused for it, so the parsed path refuses it with its reason.
     */
    private static String commonName(StrictDerReader d) throws Malformed {
        int subject = d.at;
        d.skip(WHAT);
        try {
            return IdentityDer.commonName(d.der, subject, d.at);
        } catch (java.security.cert.CertificateException refused) {
            return null;
        }
    }
}
