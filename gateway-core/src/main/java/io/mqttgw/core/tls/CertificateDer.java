package io.mqttgw.core.tls;

import java.math.BigInteger;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
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
 * <p>Stateless and allocation-light; any thread.
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

    private static final int SEQUENCE = 0x30;
    private static final int BOOLEAN = 0x01;
    private static final int INTEGER = 0x02;
    private static final int BIT_STRING = 0x03;
    private static final int OCTET_STRING = 0x04;
    private static final int EXPLICIT_EXTENSIONS = 0xa3;
    private static final int OID = 0x06;
    private static final int UTC_TIME = 0x17;
    private static final int GENERALIZED_TIME = 0x18;
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
    /** {@link CertificatePolicy#UNDERSTOOD_CRITICAL} as OID content bytes: one list for both readings. */
    private static final byte[][] UNDERSTOOD_CRITICAL = CertificatePolicy.UNDERSTOOD_CRITICAL.stream()
            .map(CertificateDer::oidContent).toArray(byte[][]::new);
    /** id-kp-clientAuth (1.3.6.1.5.5.7.3.2) and anyExtendedKeyUsage (2.5.29.37.0), content bytes. */
    private static final byte[] CLIENT_AUTH = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02};
    private static final byte[] ANY_USAGE = {0x55, 0x1d, 0x25, 0x00};
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

    /** What the lean verifier checks, for a certificate of the simple shape, or null: then read it through the JDK. */
    static Signed signed(byte[] der) {
        try {
            // the shape both paths require first: the parsed path refuses what fails it, so this one must not accept
            return CertificateSyntax.problem(der) != null ? null : new CertificateDer(der).signedFields();
        } catch (RuntimeException unexpected) {
            return null;
        }
    }

    private Signed signedFields() {
        int certificateEnd = enter(SEQUENCE);
        int tbsOffset = at;
        int tbsEnd = enter(SEQUENCE);
        int tbsLength = tbsEnd - tbsOffset;
        if (peek() != EXPLICIT_VERSION) {
            return null;                   // v1: the JDK's
        }
        int versionEnd = enter(EXPLICIT_VERSION);
        if (length(INTEGER) != 1 || der[at++] != 2 || at != versionEnd) {
            return null;
        }
        int serialLength = length(INTEGER);
        BigInteger serial = new BigInteger(der, at, serialLength);
        at += serialLength;
        int algorithmOffset = at;
        String digest = ecdsaDigest();
        int algorithmLength = at - algorithmOffset;
        if (digest == null) {
            return null;
        }
        int issuerOffset = at;
        skip();
        int issuerLength = at - issuerOffset;
        int validityEnd = enter(SEQUENCE);
        long notBefore = time();
        long notAfter = time();
        if (at != validityEnd) {
            return null;
        }
        skip();                            // subject
        int keyEnd = enter(SEQUENCE);      // subjectPublicKeyInfo
        int keyAlgorithm = at;
        skip();
        if (!strongEcKey(keyAlgorithm, at)) {
            return null;                   // RSA, Ed25519, or a key under the floor: the parsed path decides
        }
        at = keyEnd;
        boolean digitalSignature = true;
        boolean clientAuth = true;
        if (at < tbsEnd) {
            int extensionsEnd = enter(EXPLICIT_EXTENSIONS);
            int listEnd = enter(SEQUENCE);
            boolean sawKeyUsage = false;
            boolean sawExtendedKeyUsage = false;
            while (at < listEnd) {
                int extensionEnd = enter(SEQUENCE);
                int oidLength = length(OID);
                int oid = at;
                at += oidLength;
                boolean critical = false;
                if (peek() == BOOLEAN) {
                    if (length(BOOLEAN) != 1) {
                        return null;
                    }
                    critical = der[at++] != 0;
                }
                int valueLength = length(OCTET_STRING);
                if (at + valueLength != extensionEnd) {
                    return null;
                }
                if (critical && !understoodWhenCritical(oid, oidLength)) {
                    return null;               // the parsed path refuses it and names the extension
                }
                if (is(oid, oidLength, KEY_USAGE)) {
                    if (sawKeyUsage) {
                        return null;
                    }
                    sawKeyUsage = true;
                    int bits = keyUsageFirstByte();
                    if ((bits & SIGNS_FOR_OTHERS) != 0) {
                        return null;
                    }
                    digitalSignature = (bits & 0x80) != 0;
                } else if (is(oid, oidLength, EXTENDED_KEY_USAGE)) {
                    if (sawExtendedKeyUsage) {
                        return null;
                    }
                    sawExtendedKeyUsage = true;
                    clientAuth = extendedKeyUsageAllowsClientAuth();
                } else if (is(oid, oidLength, SUBJECT_ALT_NAME) && !plainAltNames(extensionEnd)) {
                    return null;                   // the JDK's parse decides on a name it may not read
                } else if (is(oid, oidLength, NAME_CONSTRAINTS)) {
                    return null;
                }
                at = extensionEnd;
            }
            if (at != extensionsEnd) {
                return null;
            }
        }
        if (at != tbsEnd) {
            return null;                   // unique identifiers, or anything else after the key: the JDK's
        }
        // the outer signature algorithm must be the one the issuer signed inside the TBS
        if (!Arrays.equals(der, at, at + algorithmLength, der, algorithmOffset, algorithmOffset + algorithmLength)) {
            return null;
        }
        at += algorithmLength;
        int bitsLength = length(BIT_STRING);
        if (bitsLength < 2 || der[at] != 0) {
            return null;
        }
        byte[] signature = Arrays.copyOfRange(der, at + 1, at + bitsLength);
        at += bitsLength;
        if (at != certificateEnd || at != der.length) {
            return null;
        }
        return new Signed(der, tbsOffset, tbsLength, issuerOffset, issuerLength, digest, signature, serial, notBefore,
                notAfter, digitalSignature, clientAuth);
    }

    /** Whether {@code der[from, to)} is the AlgorithmIdentifier of an EC key on P-256, P-384 or P-521. */
    private boolean strongEcKey(int from, int to) {
        for (byte[] allowed : EC_KEY_ALGORITHMS) {
            if (Arrays.equals(der, from, to, allowed, 0, allowed.length)) {
                return true;
            }
        }
        return false;
    }

    /** The digest of an ECDSA AlgorithmIdentifier without parameters, or null for any other algorithm. */
    private String ecdsaDigest() {
        int end = enter(SEQUENCE);
        int oidLength = length(OID);
        if (oidLength != ECDSA_WITH.length + 1 || !Arrays.equals(der, at, at + ECDSA_WITH.length, ECDSA_WITH, 0,
                ECDSA_WITH.length)) {
            return null;
        }
        int last = der[at + ECDSA_WITH.length];
        at += oidLength;
        if (at != end) {
            return null;                   // parameters
        }
        return switch (last) {
            case 2 -> "SHA-256";
            case 3 -> "SHA-384";
            case 4 -> "SHA-512";
            default -> null;
        };
    }

    /** Whether the OID at {@code oid} is one of {@link CertificatePolicy#UNDERSTOOD_CRITICAL}. */
    private boolean understoodWhenCritical(int oid, int oidLength) {
        for (byte[] understood : UNDERSTOOD_CRITICAL) {
            if (is(oid, oidLength, understood)) {
                return true;
            }
        }
        return false;
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

    /** KeyUsage ::= BIT STRING; its first byte of bits (digitalSignature is bit 0, the high bit), 0 if none. */
    private int keyUsageFirstByte() {
        int length = length(BIT_STRING);
        if (length < 1 || der[at] < 0 || der[at] > 7) {
            throw new IllegalArgumentException("key usage");
        }
        return length >= 2 ? der[at + 1] & 0xff : 0;
    }

    /** ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId. */
    private boolean extendedKeyUsageAllowsClientAuth() {
        int end = enter(SEQUENCE);
        boolean allowed = false;
        while (at < end) {
            int length = length(OID);
            allowed |= is(at, length, CLIENT_AUTH) || is(at, length, ANY_USAGE);
            at += length;
        }
        if (at != end) {
            throw new IllegalArgumentException("extended key usage");
        }
        return allowed;
    }

    /**
     * Whether the subject alternative names are only DNS names of letters, digits, hyphens and dots (no empty label,
     * none starting or ending with a hyphen) and IP addresses: names the JDK's parse reads too. The JDK refuses a
     * whole certificate whose critical SAN it cannot parse and drops a non-critical one, so any other name sends the
     * certificate to the parsed path, which refuses both.
     */
    private boolean plainAltNames(int end) {
        int listEnd = enter(SEQUENCE);
        if (listEnd != end) {
            return false;
        }
        while (at < listEnd) {
            int tag = peek();
            int length = length(tag);
            if (tag == 0x87 ? length != 4 && length != 16 : tag != 0x82 || !plainDnsName(at, length)) {
                return false;
            }
            at += length;
        }
        return true;
    }

    private boolean plainDnsName(int from, int length) {
        if (length == 0 || length > 253) {
            return false;
        }
        int labelStart = from;
        for (int i = from; i <= from + length; i++) {
            if (i == from + length || der[i] == '.') {
                if (i == labelStart || der[labelStart] == '-' || der[i - 1] == '-') {
                    return false;
                }
                labelStart = i + 1;
            } else if (!(der[i] >= 'a' && der[i] <= 'z' || der[i] >= 'A' && der[i] <= 'Z'
                    || der[i] >= '0' && der[i] <= '9' || der[i] == '-')) {
                return false;
            }
        }
        return true;
    }

    private boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
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

    /**
     * The subject's CN read by {@link IdentityDer}, the same reading as the parsed path's; null when there is none or
     * the certificate is refused for it, so the parsed path refuses it with its reason.
     */
    private String commonName() {
        int subject = at;
        skip();
        try {
            return IdentityDer.commonName(der, subject, at);
        } catch (java.security.cert.CertificateException refused) {
            return null;
        }
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
