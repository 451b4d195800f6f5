package io.mqttgw.core.tls;

import io.mqttgw.core.tls.StrictDerReader.Malformed;
import java.security.cert.CertificateException;

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
 * configured kind. The DER is walked with a {@link StrictDerReader}. Stateless; any thread.
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
    /** What a {@link Malformed} of this reading names; never shown: the refusal says which part is not DER. */
    private static final String WHAT = "identity";

    private IdentityDer() {
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
            StrictDerReader d = new StrictDerReader(der);
            d.at = offset;
            return commonName(d, end);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException | Malformed malformed) {
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
            return subjectAltName(new StrictDerReader(extensionValue), type);
        } catch (ArrayIndexOutOfBoundsException | IllegalArgumentException | Malformed malformed) {
            throw CertificateRefusals.badIdentityEncoding("the subjectAltName is not DER GeneralNames");
        }
    }

    private static String commonName(StrictDerReader d, int end) throws CertificateException, Malformed {
        int nameEnd = d.enter(SEQUENCE, WHAT);
        if (nameEnd != end) {
            throw new Malformed("name length");
        }
        int found = 0;
        int valueTag = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (d.at < nameEnd) {
            int rdnEnd = d.enter(SET, WHAT);
            if (d.at == rdnEnd) {
                throw new Malformed("empty RDN");
            }
            while (d.at < rdnEnd) {
                int attributeEnd = d.enter(SEQUENCE, WHAT);
                int oidLength = d.length(OID, WHAT);
                boolean cn = d.is(d.at, oidLength, CN);
                d.at += oidLength;
                int tag = tag(d);
                int length = d.length(tag, WHAT);
                if (cn) {
                    found++;
                    valueTag = tag;
                    valueAt = d.at;
                    valueLength = length;
                }
                d.at += length;
                if (d.at != attributeEnd) {
                    throw new Malformed("attribute length");
                }
            }
            if (d.at != rdnEnd) {
                throw new Malformed("RDN length");
            }
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subject has " + found + " CNs");
        }
        return found == 0 ? null : DerStrings.decode(d.der, valueTag, valueAt, valueLength, "CN");
    }

    private static String subjectAltName(StrictDerReader d, int type) throws CertificateException, Malformed {
        int wrapped = d.enter(OCTET_STRING, WHAT);
        int namesEnd = d.enter(SEQUENCE, WHAT);
        if (namesEnd != wrapped || wrapped != d.der.length) {
            throw new Malformed("extension length");
        }
        int found = 0;
        int valueAt = 0;
        int valueLength = 0;
        while (d.at < namesEnd) {
            int tag = tag(d);
            int length = d.length(tag, WHAT);
            if (tag == type) {
                found++;
                valueAt = d.at;
                valueLength = length;
            }
            d.at += length;
        }
        if (d.at != namesEnd) {
            throw new Malformed("GeneralNames length");
        }
        if (found > 1) {
            throw CertificateRefusals.ambiguousIdentity("the subjectAltName has " + found + " "
                    + (type == SAN_DNS ? "dNSNames" : "URIs"));
        }
        return found == 0 ? null : DerStrings.decode(d.der, DerStrings.IA5_STRING, valueAt, valueLength,
                type == SAN_DNS ? "dNSName" : "URI");
    }

    /** The tag of the next element; a multi-byte tag (high tag number form) is none an identity is read from. */
    private static int tag(StrictDerReader d) throws Malformed {
        int tag = d.peek();
        if ((tag & 0x1f) == 0x1f) {
            throw new Malformed("multi-byte tag");
        }
        return tag;
    }
}
