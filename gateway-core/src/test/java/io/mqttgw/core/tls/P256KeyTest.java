package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.math.ec.ECAlgorithms;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.raw.Nat256;
import org.junit.jupiter.api.Test;

/**
 * {@link P256Key} checks signatures with its own point arithmetic, so it is held against BouncyCastle's (and the JDK's
 * signer) on random inputs and on the inputs where hand-written formulas go wrong: zero, one and n-1 as scalars, a key
 * equal to the generator (the sum then passes through doubling and infinity inside the addition), and an x coordinate
 * above the group order.
 */
class P256KeyTest {
    private static final ECPoint G = P256Key.CURVE.getG();
    private static final BigInteger N = P256Key.CURVE.getN();
    private static final ECDomainParameters DOMAIN = new ECDomainParameters(P256Key.CURVE.getCurve(), G, N,
            P256Key.CURVE.getH());
    private final SplittableRandom random = new SplittableRandom(15);

    @Test
    void nafDigitsAddUpToTheScalarAndAreOddAndSpacedOut() {
        List<BigInteger> scalars = new ArrayList<>(edgeScalars());
        for (int i = 0; i < 2000; i++) {
            scalars.add(randomScalar());
        }
        byte[] digits = new byte[P256Key.DIGITS];
        for (BigInteger scalar : scalars) {
            P256Key.naf(Nat256.fromBigInteger(scalar), digits);
            BigInteger sum = BigInteger.ZERO;
            int last = -100;
            for (int i = digits.length - 1; i >= 0; i--) {
                int d = digits[i];
                sum = sum.shiftLeft(1).add(BigInteger.valueOf(d));
                if (d != 0) {
                    assertTrue((d & 1) == 1 && d >= -63 && d <= 63, "digit " + d + " of " + scalar);
                    assertTrue(last - i >= 7 || last < 0, "digits at " + i + " and " + last + " of " + scalar);
                    last = i;
                }
            }
            assertEquals(scalar, sum);
        }
    }

    @Test
    void computesTheSameSumAsBouncyCastleOnRandomAndEdgeScalars() {
        ECPoint q = G.multiply(randomScalar()).normalize();
        P256Key key = P256Key.of(q);
        List<BigInteger> scalars = edgeScalars();
        for (BigInteger u1 : scalars) {
            for (BigInteger u2 : scalars) {
                assertSameSum(key, q, u1, u2);
            }
        }
        for (int i = 0; i < 300; i++) {
            assertSameSum(key, q, randomScalar(), randomScalar());
        }
    }

    @Test
    void handlesTheSamePointAndTheOppositePointInsideTheSum() {
        // with the key equal to the generator, the two scalars' additions meet the same and the opposite point
        P256Key key = P256Key.of(G);
        for (BigInteger u : edgeScalars()) {
            assertSameSum(key, G, u, u);
            assertSameSum(key, G, u, N.subtract(u).mod(N));
            assertSameSum(key, G, u, u.shiftLeft(1).mod(N));
        }
        for (int i = 0; i < 100; i++) {
            BigInteger u = randomScalar();
            assertSameSum(key, G, u, u);
            assertSameSum(key, G, u, N.subtract(u));
        }
        P256Key.Scratch k = P256Key.scratch();
        key.sumOfMultiples(BigInteger.ONE, N.subtract(BigInteger.ONE), k);
        assertNull(P256Key.affine(k), "G + (n-1)G is the point at infinity");
    }

    @Test
    void acceptsWhatTheKeySignedAndRefusesEveryChange() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        for (int round = 0; round < 20; round++) {
            KeyPair pair = generator.generateKeyPair();
            ECPoint q = point(pair);
            P256Key key = P256Key.of(q);
            for (String algorithm : new String[] {"SHA256withECDSA", "SHA384withECDSA", "SHA512withECDSA"}) {
                byte[] message = new byte[1 + random.nextInt(200)];
                random.nextBytes(message);
                Signature signer = Signature.getInstance(algorithm);
                signer.initSign(pair.getPrivate());
                signer.update(message);
                BigInteger[] rs = rs(signer.sign());
                byte[] hash = MessageDigest.getInstance("SHA-" + algorithm.substring(3, 6)).digest(message);
                BigInteger r = rs[0];
                BigInteger s = rs[1];

                assertAgrees(true, key, q, hash, r, s);
                assertAgrees(true, key, q, hash, r, N.subtract(s));
                byte[] changed = hash.clone();
                // only the leftmost 256 bits of a longer digest count
                changed[random.nextInt(32)] ^= (byte) (1 << random.nextInt(8));
                assertAgrees(false, key, q, changed, r, s);
                assertAgrees(false, key, q, hash, r.add(BigInteger.ONE), s);
                assertAgrees(false, key, q, hash, r, s.add(BigInteger.ONE).mod(N));
                assertAgrees(false, key, q, hash, s, r);
                assertAgrees(false, key, q, hash, randomScalar(), randomScalar());
            }
        }
    }

    @Test
    void refusesScalarsOutsideOneToNMinusOne() {
        ECPoint q = G.multiply(randomScalar()).normalize();
        P256Key key = P256Key.of(q);
        byte[] hash = new byte[32];
        for (BigInteger bad : new BigInteger[] {BigInteger.ZERO, N, N.add(BigInteger.ONE), BigInteger.ONE.negate(),
                BigInteger.ONE.shiftLeft(256)}) {
            assertFalse(key.verifies(hash, bad, BigInteger.ONE));
            assertFalse(key.verifies(hash, BigInteger.ONE, bad));
        }
    }

    @Test
    void acceptsWhenTheXCoordinateOfTheSumIsAboveTheGroupOrder() {
        // r is x mod n; for x in [n, p) that is x - n. With a zero digest and s = r, u1 = 0 and u2 = 1, so the sum is
        // the key itself: take as key a point whose x is just above n.
        ECPoint high = null;
        for (BigInteger x = N; high == null; x = x.add(BigInteger.ONE)) {
            byte[] encoded = new byte[33];
            encoded[0] = 0x02;
            byte[] xBytes = x.toByteArray();
            System.arraycopy(xBytes, xBytes.length - 32, encoded, 1, 32);
            try {
                high = P256Key.CURVE.getCurve().decodePoint(encoded);
            } catch (IllegalArgumentException notOnTheCurve) {
                // try the next x
            }
        }
        BigInteger r = high.getAffineXCoord().toBigInteger().subtract(N);
        P256Key key = P256Key.of(high);
        byte[] zero = new byte[32];
        assertAgrees(true, key, high, zero, r, r);
        assertAgrees(false, key, high, zero, r.add(BigInteger.ONE), r.add(BigInteger.ONE));
    }

    private void assertAgrees(boolean expected, P256Key key, ECPoint q, byte[] hash, BigInteger r, BigInteger s) {
        ECDSASigner bc = new ECDSASigner();
        bc.init(false, new ECPublicKeyParameters(q, DOMAIN));
        byte[] truncated = hash.length > 32 ? java.util.Arrays.copyOf(hash, 32) : hash;
        assertEquals(expected, bc.verifySignature(truncated, r, s), "BouncyCastle on the same input");
        assertEquals(expected, key.verifies(hash, r, s));
    }

    private static void assertSameSum(P256Key key, ECPoint q, BigInteger u1, BigInteger u2) {
        ECPoint expected = ECAlgorithms.sumOfTwoMultiplies(G, u1, q, u2).normalize();
        P256Key.Scratch k = P256Key.scratch();
        key.sumOfMultiples(u1, u2, k);
        BigInteger[] actual = P256Key.affine(k);
        if (expected.isInfinity()) {
            assertNull(actual, u1 + "·G + " + u2 + "·Q is infinity");
        } else {
            assertArrayEquals(new BigInteger[] {expected.getAffineXCoord().toBigInteger(),
                    expected.getAffineYCoord().toBigInteger()}, actual, u1 + "·G + " + u2 + "·Q");
        }
    }

    private List<BigInteger> edgeScalars() {
        List<BigInteger> scalars = new ArrayList<>();
        for (long small : new long[] {0, 1, 2, 3, 63, 64, 65, 127, 128}) {
            scalars.add(BigInteger.valueOf(small));
        }
        for (int shift : new int[] {64, 65, 129, 130, 194, 195, 255}) {
            scalars.add(BigInteger.ONE.shiftLeft(shift));
            scalars.add(BigInteger.ONE.shiftLeft(shift).subtract(BigInteger.ONE));
        }
        scalars.add(N.subtract(BigInteger.ONE));
        scalars.add(N.subtract(BigInteger.TWO));
        scalars.add(N.shiftRight(1));
        return scalars;
    }

    private BigInteger randomScalar() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return new BigInteger(1, bytes).mod(N);
    }

    private static ECPoint point(KeyPair pair) {
        SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded());
        return P256Key.CURVE.getCurve().decodePoint(info.getPublicKeyData().getOctets());
    }

    private static BigInteger[] rs(byte[] der) {
        ASN1Sequence sequence = ASN1Sequence.getInstance(der);
        return new BigInteger[] {ASN1Integer.getInstance(sequence.getObjectAt(0)).getValue(),
                ASN1Integer.getInstance(sequence.getObjectAt(1)).getValue()};
    }
}
