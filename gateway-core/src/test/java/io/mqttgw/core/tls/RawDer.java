package io.mqttgw.core.tls;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Signature;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;

/**
 * DER written by hand, for certificates no well-behaved builder would make: any field malformed, yet signed for real
 * by the issuer's key, so that a verifier has to refuse them for their shape and not for their signature.
 */
public final class RawDer {
    /** Signs faster than the JDK 17 provider. */
    public static final Provider BOUNCY_CASTLE = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    private RawDer() {
    }

    /** A certificate of {@code tbs}, its signature algorithm written as {@code outerAlgorithm}. */
    public static byte[] signedCertificate(byte[] tbs, byte[] outerAlgorithm, PrivateKey key, String jdkAlgorithm)
            throws GeneralSecurityException {
        Signature signer = Signature.getInstance(jdkAlgorithm, BOUNCY_CASTLE);
        signer.initSign(key);
        signer.update(tbs);
        byte[] signature = signer.sign();
        byte[] bits = new byte[signature.length + 1];
        System.arraycopy(signature, 0, bits, 1, signature.length);
        return seq(tbs, outerAlgorithm, tlv(0x03, bits));
    }

    public static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? seq(oid(oid), bool(true), tlv(0x04, value)) : seq(oid(oid), tlv(0x04, value));
    }

    public static byte[] algorithm(String oid, boolean nullParams) {
        return nullParams ? seq(oid(oid), new byte[] {0x05, 0x00}) : seq(oid(oid));
    }

    public static byte[] name(java.util.List<byte[]> rdns) {
        return seq(rdns.toArray(new byte[0][]));
    }

    public static byte[] rdn(String type, int stringTag, String value) {
        return tlv(0x31, seq(oid(type), tlv(stringTag, value.getBytes(StandardCharsets.UTF_8))));
    }

    public static byte[] oid(String dotted) {
        try {
            return new ASN1ObjectIdentifier(dotted).getEncoded();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray());
    }

    public static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {value ? (byte) 0xff : 0});
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    public static byte[] seq(byte[]... parts) {
        return tlv(0x30, parts);
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** A UTCTime of {@code t} (seconds, Z), as a CA writes validity dates before 2050. */
    public static byte[] utc(Instant t) {
        return tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC)
                .format(t)));
    }

    /** Tag, minimal definite length, content. */
    public static byte[] tlv(int tag, byte[]... parts) {
        byte[] content = concat(parts);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else if (length < 0x100) {
            out.write(0x81);
            out.write(length);
        } else {
            out.write(0x82);
            out.write(length >> 8);
            out.write(length);
        }
        out.writeBytes(content);
        return out.toByteArray();
    }
}
