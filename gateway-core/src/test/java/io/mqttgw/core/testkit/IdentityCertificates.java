package io.mqttgw.core.testkit;

import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Device certificates whose subject (or subjectAltName) is given as raw DER, signed by a real CA: every string type a
 * CN can be, malformed strings, a CN that is not a string, two CNs. The TBSCertificate is assembled here byte by byte
 * because no certificate builder (the JDK's, netty-pkitesting's, BouncyCastle's) lets a name carry bytes its string
 * type does not allow, such as a BMPString of odd length. The {@link #CASES} list what the gateway must read from each.
 */
public final class IdentityCertificates {
    /** ASN.1 universal tags of the values used here. */
    public static final int INTEGER = 0x02;
    public static final int OCTET_STRING = 0x04;
    public static final int UTF8_STRING = 0x0c;
    public static final int NUMERIC_STRING = 0x12;
    public static final int PRINTABLE_STRING = 0x13;
    public static final int TELETEX_STRING = 0x14;
    public static final int IA5_STRING = 0x16;
    public static final int VISIBLE_STRING = 0x1a;
    public static final int UNIVERSAL_STRING = 0x1c;
    public static final int BMP_STRING = 0x1e;

    private static final String CN = "2.5.4.3";
    private static final String SERIAL_NUMBER = "2.5.4.5";
    private static final String ORGANIZATION = "2.5.4.10";
    private static final String COUNTRY = "2.5.4.6";
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'", Locale.ROOT);
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A subject and what the gateway must make of it: {@code identity} when it is read, else {@code refusal}, the
     * label of {@code mqttgw_tls_handshake_failures_total} it is counted under.
     */
    public record Case(String name, byte[] subject, String identity, String refusal) {
        @Override
        public String toString() {
            return name;
        }
    }

    public static final List<Case> CASES = List.of(
            read("UTF8String", name(rdn(cn(UTF8_STRING, utf8("dev-\u00fc1")))), "dev-\u00fc1"),
            read("UTF8String outside the BMP", name(rdn(cn(UTF8_STRING, utf8("dev-\ud83d\ude00")))),
                    "dev-\ud83d\ude00"),
            read("PrintableString", name(rdn(cn(PRINTABLE_STRING, ascii("dev-1")))), "dev-1"),
            read("PrintableString with its punctuation", name(rdn(cn(PRINTABLE_STRING, ascii("dev (1), a=b?")))),
                    "dev (1), a=b?"),
            read("IA5String", name(rdn(cn(IA5_STRING, ascii("dev-1@plant")))), "dev-1@plant"),
            read("TeletexString of printable ASCII", name(rdn(cn(TELETEX_STRING, ascii("dev-1")))), "dev-1"),
            read("BMPString", name(rdn(cn(BMP_STRING, utf16("dev-\u00fc1")))), "dev-\u00fc1"),
            read("BMPString whose bytes spell victim in ASCII", name(rdn(cn(BMP_STRING, ascii("victim")))),
                    "\u7669\u6374\u696d"),
            read("UniversalString", name(rdn(cn(UNIVERSAL_STRING, utf32("dev-\u00fc1")))), "dev-\u00fc1"),
            read("UniversalString outside the BMP", name(rdn(cn(UNIVERSAL_STRING, utf32("dev-\ud83d\ude00")))),
                    "dev-\ud83d\ude00"),
            read("CN among other RDNs", name(rdn(attribute(COUNTRY, PRINTABLE_STRING, ascii("DE"))),
                    rdn(attribute(ORGANIZATION, UTF8_STRING, utf8("Acme"))), rdn(cn(UTF8_STRING, utf8("dev-7")))),
                    "dev-7"),
            read("CN with a serial number in one RDN", name(rdn(attribute(ORGANIZATION, UTF8_STRING, utf8("Acme"))),
                    rdn(cn(UTF8_STRING, utf8("dev-9")), attribute(SERIAL_NUMBER, PRINTABLE_STRING, ascii("0009")))),
                    "dev-9"),
            read("CN with an LDAP special character", name(rdn(cn(UTF8_STRING, utf8("dev,1+x=\"y\"")))),
                    "dev,1+x=\"y\""),
            refused("CN that is an OCTET STRING", name(rdn(cn(OCTET_STRING, ascii("victim")))),
                    "bad_identity_encoding"),
            refused("CN that is an INTEGER", name(rdn(cn(INTEGER, new byte[] {0x05}))), "bad_identity_encoding"),
            refused("CN that is a VisibleString", name(rdn(cn(VISIBLE_STRING, ascii("dev-1")))),
                    "bad_identity_encoding"),
            refused("CN that is a NumericString", name(rdn(cn(NUMERIC_STRING, ascii("0001")))),
                    "bad_identity_encoding"),
            refused("BMPString of odd length", name(rdn(cn(BMP_STRING, new byte[] {0, 'd', 0, 'e', 0}))),
                    "bad_identity_encoding"),
            // UCS-2: a pair is not a character of the BMP; OpenSSL 3 does not even load such a certificate
            refused("BMPString with a surrogate pair", name(rdn(cn(BMP_STRING, utf16("dev-\ud83d\ude00")))),
                    "bad_identity_encoding"),
            refused("BMPString with an unpaired high surrogate",
                    name(rdn(cn(BMP_STRING, new byte[] {0, 'd', (byte) 0xd8, 0x3d, 0, 'x'}))),
                    "bad_identity_encoding"),
            refused("BMPString with an unpaired low surrogate",
                    name(rdn(cn(BMP_STRING, new byte[] {0, 'd', (byte) 0xde, 0x00}))), "bad_identity_encoding"),
            refused("UTF8String with an overlong slash",
                    name(rdn(cn(UTF8_STRING, new byte[] {'d', (byte) 0xc0, (byte) 0xaf, 'x'}))),
                    "bad_identity_encoding"),
            refused("UTF8String with an encoded surrogate",
                    name(rdn(cn(UTF8_STRING, new byte[] {'d', (byte) 0xed, (byte) 0xa0, (byte) 0x80}))),
                    "bad_identity_encoding"),
            refused("UTF8String that is Latin-1", name(rdn(cn(UTF8_STRING, new byte[] {'d', (byte) 0xfc, '1'}))),
                    "bad_identity_encoding"),
            refused("PrintableString with an at sign", name(rdn(cn(PRINTABLE_STRING, ascii("dev@1")))),
                    "bad_identity_encoding"),
            refused("PrintableString with an asterisk", name(rdn(cn(PRINTABLE_STRING, ascii("dev*")))),
                    "bad_identity_encoding"),
            refused("IA5String with a high byte", name(rdn(cn(IA5_STRING, new byte[] {'d', (byte) 0xfc}))),
                    "bad_identity_encoding"),
            refused("TeletexString with a high byte", name(rdn(cn(TELETEX_STRING, new byte[] {'d', (byte) 0xfc}))),
                    "bad_identity_encoding"),
            refused("TeletexString with a control character", name(rdn(cn(TELETEX_STRING, new byte[] {'d', 0x1b}))),
                    "bad_identity_encoding"),
            refused("UniversalString past U+10FFFF", name(rdn(cn(UNIVERSAL_STRING, new byte[] {0, 0x11, 0, 0}))),
                    "bad_identity_encoding"),
            refused("UniversalString of a surrogate",
                    name(rdn(cn(UNIVERSAL_STRING, new byte[] {0, 0, (byte) 0xd8, 0}))), "bad_identity_encoding"),
            refused("UniversalString not a multiple of four",
                    name(rdn(cn(UNIVERSAL_STRING, new byte[] {0, 0, 0, 'd', 0, 0}))), "bad_identity_encoding"),
            refused("two CNs", name(rdn(cn(UTF8_STRING, utf8("victim"))), rdn(cn(UTF8_STRING, utf8("attacker")))),
                    "ambiguous_identity"),
            refused("two CNs in one multi-valued RDN",
                    name(rdn(cn(UTF8_STRING, utf8("victim")), cn(UTF8_STRING, utf8("attacker")))),
                    "ambiguous_identity"),
            refused("the same CN twice", name(rdn(cn(UTF8_STRING, utf8("dev-1"))), rdn(cn(UTF8_STRING, utf8("dev-1")))),
                    "ambiguous_identity"));

    private IdentityCertificates() {
    }

    private static Case read(String name, byte[] subject, String identity) {
        return new Case(name, subject, identity, null);
    }

    private static Case refused(String name, byte[] subject, String reason) {
        return new Case(name, subject, null, reason);
    }

    /** The case called {@code name}. */
    public static Case named(String name) {
        return CASES.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(name));
    }

    /** A device certificate (EC P-256, clientAuth) with {@code subject}, issued by {@code ca}, valid now. */
    public static X509Bundle device(X509Bundle ca, byte[] subject) {
        return device(ca, subject, new byte[0][]);
    }

    /** As {@link #device(X509Bundle, byte[])}, with the given extensions (see {@link #subjectAltName}) too. */
    public static X509Bundle device(X509Bundle ca, byte[] subject, byte[]... extensions) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair keys = generator.generateKeyPair();
            X509Certificate issuer = ca.getCertificate();
            byte[] algorithm = tlv(0x30, tlv(0x06, oid("1.2.840.10045.4.3.2")));
            ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
            byte[] validity = tlv(0x30, tlv(0x17, ascii(UTC_TIME.format(now.minusHours(1)))),
                    tlv(0x17, ascii(UTC_TIME.format(now.plusDays(1)))));
            List<byte[]> all = new ArrayList<>();
            all.add(extension("2.5.29.37", tlv(0x30, tlv(0x06, oid("1.3.6.1.5.5.7.3.2")))));
            all.addAll(List.of(extensions));
            byte[] serial = new byte[9];
            RANDOM.nextBytes(serial);
            serial[0] = (byte) (serial[0] & 0x3f | 0x01);
            byte[] tbs = tlv(0x30, tlv(0xa0, tlv(INTEGER, new byte[] {2})), tlv(INTEGER, serial), algorithm,
                    issuer.getSubjectX500Principal().getEncoded(), validity, subject, keys.getPublic().getEncoded(),
                    tlv(0xa3, tlv(0x30, all.toArray(byte[][]::new))));
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(ca.getKeyPair().getPrivate());
            signer.update(tbs);
            byte[] signature = signer.sign();
            byte[] bits = new byte[signature.length + 1];
            System.arraycopy(signature, 0, bits, 1, signature.length);
            byte[] der = tlv(0x30, tbs, algorithm, tlv(0x03, bits));
            X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
            return X509Bundle.fromCertificatePath(new X509Certificate[] {certificate}, issuer, keys);
        } catch (Exception e) {
            throw new IllegalStateException("cannot issue the test certificate", e);
        }
    }

    /** A subjectAltName extension of the given GeneralNames ({@link #sanUri}, {@link #sanDns}). */
    public static byte[] subjectAltName(byte[]... names) {
        return extension("2.5.29.17", tlv(0x30, names));
    }

    public static byte[] sanUri(String uri) {
        return tlv(0x86, ascii(uri));
    }

    public static byte[] sanDns(String dns) {
        return tlv(0x82, ascii(dns));
    }

    private static byte[] extension(String oid, byte[] value) {
        return tlv(0x30, tlv(0x06, oid(oid)), tlv(OCTET_STRING, value));
    }

    public static byte[] name(byte[]... rdns) {
        return tlv(0x30, rdns);
    }

    /** A relative distinguished name: a DER SET OF, its members in the order of their encodings (X.690 11.6). */
    public static byte[] rdn(byte[]... attributes) {
        byte[][] sorted = attributes.clone();
        java.util.Arrays.sort(sorted, java.util.Arrays::compareUnsigned);
        return tlv(0x31, sorted);
    }

    public static byte[] cn(int tag, byte[] value) {
        return attribute(CN, tag, value);
    }

    public static byte[] attribute(String oid, int tag, byte[] value) {
        return tlv(0x30, tlv(0x06, oid(oid)), tlv(tag, value));
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The bytes as they are; no check that they are ASCII. */
    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    public static byte[] utf16(String s) {
        return s.getBytes(StandardCharsets.UTF_16BE);
    }

    public static byte[] utf32(String s) {
        return s.getBytes(java.nio.charset.Charset.forName("UTF-32BE"));
    }

    /** One DER element: tag, definite length, the parts concatenated. */
    public static byte[] tlv(int tag, byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        int length = content.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        if (length < 0x80) {
            out.write(length);
        } else if (length < 0x100) {
            out.write(0x81);
            out.write(length);
        } else {
            out.write(0x82);
            out.write(length >> 8);
            out.write(length & 0xff);
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }

    private static byte[] oid(String dotted) {
        try {
            byte[] encoded = new org.bouncycastle.asn1.ASN1ObjectIdentifier(dotted).getEncoded();
            return java.util.Arrays.copyOfRange(encoded, 2, encoded.length);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(dotted, e);
        }
    }
}
