package io.mqttgw.core.tls;

import java.security.cert.CertificateException;
import java.util.Arrays;

/**
 * Reads a device identity from DER by the rules of RFC 5280 and X.520, the one reading both the fast path
 * ({@link CertificateDer}) and the parsed path ({@link CertificateIdentities}) use, so they cannot disagree. The
 * JDK's {@code X500Principal.getName()} is not used: on JDK 17 it decodes BMPString and TeletexString bytes as UTF-8
 * and prints a value that is not a string as the name of a Java array, and its LDAP form hides which of several CNs
 * was taken.
 *
 * <p>A string is decoded by the rules of its own ASN.1 type ({@link DerStrings}). Any other type refuses the
 * certificate ({@code bad_identity_encoding}), and so does more than one value of the kind the identity is read from
 * ({@code ambiguous_identity}): two CNs, whether in separate RDNs or one multi-valued RDN, or two SAN entries of the
 * configured kind. Stateless; any thread.
 */
final class IdentityDer {
    private static final int SEQUENCE = 0x30;
    private static final int SET = 0x31;
    private static final int OID = 0x06;
    private static final int OCTET_STRING = 0x04;
    /** GeneralName's dNSName [2] and uniformResourceIdentifier [6], both IMPLICIT IA5String. */
    static final int SAN_DNS = 0x82;
    static final int SAN_URI = 0x86;
    /** 2.5.4.3, the common name's attribute type, as DER content bytes. */
    private static final byte[] CN = {0x55, 0x04, 0x03};

    private final byte[] der;
    private int at;

    private IdentityDer(byte[] der, int at) {
        this.der = der;
        this.at = at;
    }

    /**
     * The value of the subject's one CN, or null when it has none (or an empty one).
     *
     * @param der    holds the Name's DER (its tag and length included) at {@code [offset, end)}
     * @throws CertificateException a refusal of {@link CertificateRefusals}: more than one CN, a CN that is not a
     *                              string of the types read, or a Name that is not DER
     */
    static String commonName(byte[] der, int offset, int end) throws CertificateException {
        try {
            return new IdentityDer(der, offset).commonName(end);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException malformed) {
            throw CertificateRefusals.badIdentityEncoding("the subject is not a DER Name");
        }
    }

    /**
     * The one SAN entry of {@code type} ({@link #SAN_DNS} or {@link #SAN_URI}), or null when there is none.
     *
     * @param extensionValue the subjectAltName extension's value as {@code getExtensionValue} returns it (the
     *                       OCTET STRING that wraps GeneralNames)
     */
    static String subjectAltName(byte[] extensionValue, int type) throws CertificateException {
        try {
            return new IdentityDer(extensionValue, 0).subjectAltName(type);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException malformed) {
            throw CertificateRefusals.badIdentityEncoding("the subjectAltName is not DER GeneralNames");
        }
    }

    private String commonName(int end) throws CertificateException {
        int nameEnd = enter(SEQUENCE);
        if (nameEnd != end) {
            throw new IllegalArgumentException("name length");
        }
        int found = 0;
        int valueTag = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (at < nameEnd) {
            int rdnEnd = enter(SET);
            if (at == rdnEnd) {
                throw new IllegalArgumentException("empty RDN");
            }
            while (at < rdnEnd) {
                int attributeEnd = enter(SEQUENCE);
                int oidLength = length(OID);
                boolean cn = is(at, oidLength, CN);
                at += oidLength;
                int tag = peek();
                int length = length(tag);
                if (cn) {
                    found++;
                    valueTag = tag;
                    valueAt = at;
                    valueLength = length;
                }
                at += length;
                if (at != attributeEnd) {
                    throw new IllegalArgumentException("attribute length");
                }
            }
            if (at != rdnEnd) {
                throw new IllegalArgumentException("RDN length");
            }
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subject has " + found + " CNs");
        }
        return found == 0 ? null : DerStrings.decode(der, valueTag, valueAt, valueLength, "CN");
    }

    private String subjectAltName(int type) throws CertificateException {
        int wrapped = enter(OCTET_STRING);
        int namesEnd = enter(SEQUENCE);
        if (namesEnd != wrapped || wrapped != der.length) {
            throw new IllegalArgumentException("extension length");
        }
        int found = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (at < namesEnd) {
            int tag = peek();
            int length = length(tag);
            if (tag == type) {
                found++;
                valueAt = at;
                valueLength = length;
            }
            at += length;
        }
        if (at != namesEnd) {
            throw new IllegalArgumentException("GeneralNames length");
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subjectAltName has " + found + " "
                    + (type == SAN_DNS ? "dNSNames" : "URIs"));
        }
        return found == 0 ? null : DerStrings.decode(der, DerStrings.IA5_STRING, valueAt, valueLength,
                type == SAN_DNS ? "dNSName" : "URI");
    }


    private boolean is(int offset, int length, byte[] content) {
        return length == content.length && Arrays.equals(der, offset, offset + length, content, 0, length);
    }

    private int peek() {
        int tag = der[at] & 0xff;
        if ((tag & 0x1f) == 0x1f) {
            throw new IllegalArgumentException("multi-byte tag");
        }
        return tag;
    }

    /** Steps into a constructed element of the given tag; returns where its content ends. */
    private int enter(int tag) {
        int length = length(tag);
        return at + length;
    }

    /** Reads the tag (which must be {@code tag}) and a definite length; leaves {@code at} on the content. */
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
