package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1Sequence;
import org.junit.jupiter.api.Test;

/**
 * The hand-read ECDSA signature takes exactly the encodings that BouncyCastle's parse followed by a DER re-encoding
 * takes (the check it replaces), with positive r and s; every other byte string, however close to a real signature,
 * answers null.
 */
class EcdsaSignatureTest {
    /** The replaced check: BouncyCastle's parse, the bytes equal to their DER re-encoding, r and s positive. */
    private static BigInteger[] reference(byte[] der) {
        try {
            ASN1Sequence sequence = ASN1Sequence.getInstance(der);
            if (sequence.size() != 2 || !Arrays.equals(sequence.getEncoded(ASN1Encoding.DER), der)) {
                return null;
            }
            BigInteger r = ASN1Integer.getInstance(sequence.getObjectAt(0)).getValue();
            BigInteger s = ASN1Integer.getInstance(sequence.getObjectAt(1)).getValue();
            return r.signum() > 0 && s.signum() > 0 ? new BigInteger[] {r, s} : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void assertSameAnswer(byte[] der) {
        BigInteger[] expected = reference(der);
        EcdsaSignature actual = EcdsaSignature.strictDer(der);
        String hex = HexFormat.of().formatHex(der);
        if (expected == null) {
            assertNull(actual, hex);
        } else {
            assertNotNull(actual, hex);
            assertEquals(expected[0], actual.r(), hex);
            assertEquals(expected[1], actual.s(), hex);
        }
    }

    private static byte[] sign(String curve, String algorithm, Random random) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec(curve));
        KeyPair pair = generator.generateKeyPair();
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(pair.getPrivate());
        byte[] data = new byte[64];
        random.nextBytes(data);
        signer.update(data);
        return signer.sign();
    }

    @Test
    void readsRealSignaturesOfEveryCurveAndEveryChangeOfThemAsTheReferenceDoes() throws Exception {
        Random random = new Random(7);
        int read = 0;
        for (String[] kind : new String[][] {{"secp256r1", "SHA256withECDSA"}, {"secp384r1", "SHA384withECDSA"},
                {"secp521r1", "SHA512withECDSA"}}) {
            for (int i = 0; i < 40; i++) {
                byte[] der = sign(kind[0], kind[1], random);
                assertNotNull(EcdsaSignature.strictDer(der), kind[0]);
                assertSameAnswer(der);
                read++;
                for (int at = 0; at < der.length; at++) {
                    byte[] flipped = der.clone();
                    flipped[at] ^= (byte) (1 << random.nextInt(8));
                    assertSameAnswer(flipped);
                }
                assertSameAnswer(Arrays.copyOf(der, der.length + 1));
                assertSameAnswer(Arrays.copyOf(der, der.length - 1));
            }
        }
        assertEquals(120, read);
    }

    @Test
    void refusesEncodingsThatAreNotStrictDer() {
        String[] refused = {
            "300602010102010100",                   // a byte after the sequence
            "308106020101020101",                   // long-form length for a short sequence
            "30070201010202000101",                 // s with a leading zero it does not need
            "300702020001020101",                   // r with a leading zero it does not need
            "30060201ff020101",                     // negative r
            "3006020100020101",                     // r zero
            "3006020101020100",                     // s zero
            "3006020101030101",                     // s not an INTEGER
            "3106020101020101",                     // a SET, not a SEQUENCE
            "3005020101020101",                     // sequence length one short
            "3008020101020101",                     // sequence length past the end
            "300702020080020101",                   // r 0x0080 is minimal: accepted (checked below), not here
        };
        for (int i = 0; i < refused.length - 1; i++) {
            byte[] der = HexFormat.of().parseHex(refused[i]);
            assertNull(EcdsaSignature.strictDer(der), refused[i]);
            assertSameAnswer(der);
        }
        byte[] minimal = HexFormat.of().parseHex("300702020080020101");
        assertEquals(BigInteger.valueOf(0x80), EcdsaSignature.strictDer(minimal).r());
        assertSameAnswer(minimal);
    }

    @Test
    void answersTheReferenceOnRandomShortByteStrings() {
        Random random = new Random(11);
        for (int i = 0; i < 200_000; i++) {
            byte[] der = new byte[8 + random.nextInt(6)];
            random.nextBytes(der);
            der[0] = 0x30;
            der[1] = (byte) (der.length - 2 - (random.nextInt(8) == 0 ? 1 : 0));
            der[2] = 0x02;
            assertSameAnswer(der);
        }
    }
}
