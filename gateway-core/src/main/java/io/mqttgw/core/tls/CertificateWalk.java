package io.mqttgw.core.tls;

/**
 * A {@link StrictDerReader} that keeps, as {@link CertificateSyntax} checks a certificate's shape, where its fields
 * are and what its extensions grant, so that {@link CertificateDer#signed} reads them without a second walk: the
 * fast path then reads nothing the shape check has not passed, and no DER the check stepped over. Offsets index
 * {@link #der}; ends are exclusive. One per certificate read; confined to the thread that reads it.
 */
final class CertificateWalk extends StrictDerReader {
    /** 0 for v1 (no version field), 1 for v2, 2 for v3. */
    int version;
    int tbsOffset;
    int tbsEnd;
    int serialOffset;
    int serialLength;
    /** The signed AlgorithmIdentifier, whole DER (the outer one is checked to be the same bytes). */
    int algorithmOffset;
    int algorithmEnd;
    /** The issuer Name, whole DER. */
    int issuerOffset;
    int issuerEnd;
    long notBeforeMillis;
    long notAfterMillis;
    /** The subject public key's AlgorithmIdentifier, whole DER. */
    int keyAlgorithmOffset;
    int keyAlgorithmEnd;
    boolean uniqueIdentifiers;
    /** The signature BIT STRING's content: its unused-bits octet, then the bits. */
    int signatureOffset;
    int signatureLength;
    /** The first octet of the key usage bits (digitalSignature is its high bit); -1 without a key usage. */
    int keyUsageBits = -1;
    /** False only when an extended key usage leaves out both clientAuth and anyExtendedKeyUsage. */
    boolean clientAuth = true;
    /** Whether every subject alternative name is a plain DNS name or an IP address (true without any). */
    boolean plainAltNames = true;
    boolean criticalAltName;
    boolean nameConstraints;
    /** Whether a critical extension is one the lean verifier does not evaluate. */
    boolean criticalNotUnderstood;

    CertificateWalk(byte[] der) {
        super(der);
    }
}
