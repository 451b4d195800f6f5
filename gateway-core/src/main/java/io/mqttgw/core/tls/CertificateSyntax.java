package io.mqttgw.core.tls;

import io.mqttgw.core.tls.StrictDerReader.Malformed;
import java.util.Arrays;

/**
 * The shape RFC 5280 gives a certificate, checked on its DER before either verifier path reads a field of it, so that
 * the DER fast path and the parsed path refuse the same malformed certificates (the JDK's parse is lenient in places,
 * strict in others, and silently drops a non-critical extension it cannot parse: a usage restriction in it would be
 * ignored). Checked: DER lengths (definite, minimal); version, and extensions only in v3, unique identifiers not in
 * v1; a minimal, positive serial of at most 20 octets; the inner and outer signature algorithm identical; names as
 * sequences of non-empty sets of (type, value) pairs, the issuer not empty, an empty subject only with a critical
 * subject alternative name; validity times in the forms RFC 5280 4.1.2.5 allows (UTCTime YYMMDDHHMMSSZ,
 * GeneralizedTime YYYYMMDDHHMMSSZ from 2050 on, real calendar dates); a public key info of algorithm and bits; a
 * non-empty extension list without a repeated extension; and the value of every extension the verifiers evaluate
 * (key usage, extended key usage, basic constraints, subject alternative name) exactly of its ASN.1 type, critical
 * or not, with nothing after it. The extension checks are {@link ExtensionSyntax}'s, the DER primitives
 * {@link StrictDerReader}'s. The walk that checks also keeps where the fields are ({@link CertificateWalk}), so the DER
 * fast path reads a certificate once. Stateless; any thread.
 */
final class CertificateSyntax {
    private CertificateSyntax() {
    }

    /** Null for a certificate of RFC 5280's shape; otherwise what is wrong with it, in a few words. */
    static String problem(byte[] der) {
        if (der == null || der.length == 0) {
            return "empty certificate";
        }
        return problem(new CertificateWalk(der));
    }

    /**
     * The walk of a certificate of RFC 5280's shape, holding where its fields are; null for any other certificate.
     * The one reading the DER fast path takes: what it reads has passed every check {@link #problem} makes.
     */
    static CertificateWalk walked(byte[] der) {
        if (der == null || der.length == 0) {
            return null;
        }
        CertificateWalk walk = new CertificateWalk(der);
        return problem(walk) == null ? walk : null;
    }

    private static String problem(CertificateWalk walk) {
        try {
            certificate(walk);
            return null;
        } catch (Malformed e) {
            return e.getMessage();
        } catch (RuntimeException e) {
            return "truncated DER";
        }
    }

    private static void certificate(CertificateWalk d) throws Malformed {
        int end = d.enter(0x30, "certificate");
        if (end != d.der.length) {
            throw new Malformed("bytes after the certificate");
        }
        d.tbsOffset = d.at;
        int tbsEnd = d.enter(0x30, "TBSCertificate");
        d.tbsEnd = tbsEnd;
        int version = 0;
        if (d.peek() == 0xa0) {
            int versionEnd = d.enter(0xa0, "version");
            version = d.smallInteger("version");
            if (d.at != versionEnd || version < 1 || version > 2) {
                throw new Malformed("version");
            }
        }
        d.version = version;
        serialNumber(d);
        int algorithmFrom = d.at;
        d.algorithmIdentifier("signature algorithm");
        int algorithmTo = d.at;
        d.algorithmOffset = algorithmFrom;
        d.algorithmEnd = algorithmTo;
        d.issuerOffset = d.at;
        if (name(d, "issuer") == 0) {
            throw new Malformed("empty issuer");
        }
        d.issuerEnd = d.at;
        int validityEnd = d.enter(0x30, "validity");
        d.notBeforeMillis = d.time("notBefore", true);     // RFC 5280 4.1.2.5: GeneralizedTime from 2050 only
        d.notAfterMillis = d.time("notAfter", true);
        d.expectEnd(validityEnd, "validity");
        boolean subjectEmpty = name(d, "subject") == 0;
        int keyEnd = d.enter(0x30, "subject public key info");
        d.keyAlgorithmOffset = d.at;
        d.algorithmIdentifier("public key algorithm");
        d.keyAlgorithmEnd = d.at;
        d.bitString("public key");
        d.expectEnd(keyEnd, "subject public key info");
        for (int tag = 0x81; tag <= 0x82; tag++) {     // issuerUniqueID, subjectUniqueID: each optional
            if (d.at < tbsEnd && d.peek() == tag) {
                if (version < 1) {
                    throw new Malformed("unique identifier in a v1 certificate");
                }
                d.bitStringContent(d.length(tag, "unique identifier"), "unique identifier");
                d.uniqueIdentifiers = true;
            }
        }
        if (d.at < tbsEnd && d.peek() == 0xa3) {
            if (version != 2) {
                throw new Malformed("extensions in a v" + (version + 1) + " certificate");
            }
            int extensionsEnd = d.enter(0xa3, "extensions");
            ExtensionSyntax.extensions(d);
            d.expectEnd(extensionsEnd, "extensions");
        }
        if (subjectEmpty && !d.criticalAltName) {
            // RFC 5280 4.1.2.6: the identity is then in the SAN, which must be critical (the JDK refuses it too)
            throw new Malformed("empty subject without a critical subject alternative name");
        }
        d.expectEnd(tbsEnd, "TBSCertificate");
        int outerFrom = d.at;
        d.algorithmIdentifier("signature algorithm");
        if (!Arrays.equals(d.der, algorithmFrom, algorithmTo, d.der, outerFrom, d.at)) {
            throw new Malformed("outer signature algorithm differs from the signed one");
        }
        int signatureLength = d.length(0x03, "signature");
        d.signatureOffset = d.at;
        d.signatureLength = signatureLength;
        d.bitStringContent(signatureLength, "signature");
        d.expectEnd(end, "certificate");
    }

    /**
     * RFC 5280 4.1.2.2 requires of a conforming CA a positive serial of at most 20 octets; the value's octets are
     * counted, not the sign byte DER puts before a value whose high bit is set. A CA that issues outside it is outside
     * the profile the verifiers were written for, and a serial is what revocation is looked up by.
     */
    private static void serialNumber(CertificateWalk d) throws Malformed {
        int length = d.integerContent("serial number");
        if (d.der[d.at] < 0) {
            throw new Malformed("negative serial number");
        }
        if (length == 1 && d.der[d.at] == 0) {
            throw new Malformed("serial number zero");
        }
        if (length - (d.der[d.at] == 0 ? 1 : 0) > 20) {
            throw new Malformed("serial number longer than 20 octets");
        }
        d.serialOffset = d.at;
        d.serialLength = length;
        d.at += length;
    }

    /** Name ::= SEQUENCE OF SET SIZE (1..MAX) OF SEQUENCE { type OID, value ANY }; returns the count of RDNs. */
    static int name(StrictDerReader d, String what) throws Malformed {
        int end = d.enter(0x30, what);
        int rdns = 0;
        while (d.at < end) {
            int setEnd = d.enter(0x31, what);
            if (d.at == setEnd) {
                throw new Malformed("empty RDN in the " + what);
            }
            while (d.at < setEnd) {
                int attributeEnd = d.enter(0x30, what);
                d.objectIdentifier(what);
                if (d.at >= attributeEnd) {
                    throw new Malformed("attribute without a value in the " + what);
                }
                d.skip(what);
                d.expectEnd(attributeEnd, what);
            }
            d.expectEnd(setEnd, what);
            rdns++;
        }
        d.expectEnd(end, what);
        return rdns;
    }
}
