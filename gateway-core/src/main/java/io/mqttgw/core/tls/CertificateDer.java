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
 * <p>The DER is walked with a {@link StrictDerReader}; {@link #signed} reads what {@link CertificateSyntax}'s walk kept
 * ({@link CertificateWalk}), with the extension values read by {@link DeviceExtensionsDer} as they are checked.
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
    private static final int EXPLICIT_VERSION = 0xa0;
    /**
     * The AlgorithmIdentifiers ecdsa-with-SHA256/384/512 (1.2.840.10045.4.3.2-4) without parameters, whole DER (the
     * only encoding once the shape check passed its lengths), and their digests' JDK names.
     */
    private static final byte[][] ECDSA_ALGORITHMS = {
        {0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x02},
        {0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x03},
        {0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x04}};
    private static final String[] ECDSA_DIGESTS = {"SHA-256", "SHA-384", "SHA-512"};
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
            // one walk checks the shape both paths require and keeps the fields: nothing is read that it did not pass
            CertificateWalk walk = CertificateSyntax.walked(der);
            return walk == null ? null : signedFields(walk);
        } catch (RuntimeException unexpected) {
            return null;
        }
    }

    private static Signed signedFields(CertificateWalk w) {
        if (w.version != 2 || w.uniqueIdentifiers) {
            return null;                   // v1, v2, unique identifiers: the JDK's
        }
        String digest = ecdsaDigest(w);
        if (digest == null || !strongEcKey(w)) {
            return null;                   // RSA, Ed25519, or a key under the floor: the parsed path decides
        }
        if (w.criticalNotUnderstood || w.nameConstraints || !w.plainAltNames
                || w.keyUsageBits >= 0 && (w.keyUsageBits & SIGNS_FOR_OTHERS) != 0) {
            return null;                   // the parsed path refuses it or decides on what it may not read here
        }
        byte[] der = w.der;
        if (w.signatureLength < 2 || der[w.signatureOffset] != 0) {
            return null;
        }
        byte[] signature = Arrays.copyOfRange(der, w.signatureOffset + 1, w.signatureOffset + w.signatureLength);
        BigInteger serial = new BigInteger(der, w.serialOffset, w.serialLength);
        boolean digitalSignature = w.keyUsageBits < 0 || (w.keyUsageBits & 0x80) != 0;
        return new Signed(der, w.tbsOffset, w.tbsEnd - w.tbsOffset, w.issuerOffset, w.issuerEnd - w.issuerOffset,
                digest, signature, serial, w.notBeforeMillis, w.notAfterMillis, digitalSignature, w.clientAuth);
    }

    /** Whether the subject public key's AlgorithmIdentifier is that of an EC key on P-256, P-384 or P-521. */
    private static boolean strongEcKey(CertificateWalk w) {
        for (byte[] allowed : EC_KEY_ALGORITHMS) {
            if (Arrays.equals(w.der, w.keyAlgorithmOffset, w.keyAlgorithmEnd, allowed, 0, allowed.length)) {
                return true;
            }
        }
        return false;
    }

    /** The digest of the signed AlgorithmIdentifier if it is ECDSA without parameters, else null. */
    private static String ecdsaDigest(CertificateWalk w) {
        for (int i = 0; i < ECDSA_ALGORITHMS.length; i++) {
            if (Arrays.equals(w.der, w.algorithmOffset, w.algorithmEnd, ECDSA_ALGORITHMS[i], 0,
                    ECDSA_ALGORITHMS[i].length)) {
                return ECDSA_DIGESTS[i];
            }
        }
        return null;
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
