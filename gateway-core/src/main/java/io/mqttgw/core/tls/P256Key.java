package io.mqttgw.core.tls;

import java.math.BigInteger;
import java.util.Arrays;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.custom.sec.SecP256R1Field;
import org.bouncycastle.math.raw.Nat256;
import org.bouncycastle.util.BigIntegers;

/**
 * A configured CA's P-256 public key, prepared once for checking the ECDSA signature of every device certificate it
 * issued, without allocating.
 *
 * <p>Why not BouncyCastle's {@code ECDSASigner}: its points and field elements are immutable, so one signature check
 * allocates some 75 KB (a new array for every field multiplication), about 60 % of all the bytes a full device
 * handshake allocated (async-profiler allocation profile, JMH {@code -prof gc}). Here the field arithmetic
 * is still BouncyCastle's ({@link SecP256R1Field}, on caller-provided arrays); the points are Jacobian coordinates in
 * per-thread scratch arrays.
 *
 * <p>It also does less work. {@code u1·G + u2·Q} is computed with both bases known in advance: each scalar is
 * written in width-7 NAF and cut into 16 spans of 17 digits, and for the generator and the key the odd multiples
 * {@code 1..63} of {@code 2^(17j)·base} are kept in affine form (32 KiB per key). The spans of both scalars then share
 * 16 doublings instead of 256, and every addition is a mixed (affine) one: 52-53 µs per check against 71-72 µs for
 * BouncyCastle's in the same process. Fewer spans measured slower (4: 88 µs, 8: 72 µs); 32 gained 4 µs for twice the
 * table (docs/benchmarks/history.md, "A signature check that allocates nothing").
 *
 * <p>The result is compared with {@code r} without an inversion ({@code x = X/Z²}, so {@code r·Z² = X}, and also
 * {@code (r+n)·Z² = X} when {@code r+n < p}). Timing does not depend on secrets: everything here is public (the
 * signature, the certificate, the CA key).
 *
 * <p>Threading: the tables are immutable and shared; each thread has its own scratch arrays, so any number of event
 * loops verify at once without a lock. Not reentrant on one thread (nothing here calls back out).
 */
final class P256Key {
    static final X9ECParameters CURVE = CustomNamedCurves.getByName("secp256r1");
    private static final BigInteger N = CURVE.getN();
    private static final BigInteger P_BIG = CURVE.getCurve().getField().getCharacteristic();
    private static final int[] P = Nat256.fromBigInteger(P_BIG);

    /** NAF width: digits are odd, in -63..63. */
    private static final int WIDTH = 7;
    /** The odd multiples 1, 3, ..., 63 of a base. */
    private static final int MULTIPLES = 1 << (WIDTH - 2);
    /** Digit positions per span; the spans hold the up to 257 digits of a 256-bit scalar, and a few zeros. */
    private static final int SPANS = 16;
    private static final int SPAN = (257 + 7 + SPANS - 1) / SPANS;
    static final int DIGITS = SPAN * SPANS;
    /** Ints per affine point in a table: x then y, eight limbs each. */
    private static final int POINT = 16;

    private static final int[] GENERATOR = table(CURVE.getG());
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final int[] key;

    private P256Key(ECPoint q) {
        this.key = table(q);
    }

    /** The key as a point of BouncyCastle's P-256 curve (decoded and validated by the caller); not infinity. */
    static P256Key of(ECPoint q) {
        if (q.isInfinity() || !q.getCurve().equals(CURVE.getCurve())) {
            throw new IllegalArgumentException("not a P-256 public key");
        }
        return new P256Key(q);
    }

    /**
     * Whether {@code (r, s)} is a valid ECDSA signature of a message with digest {@code hash} under this key. The
     * digest's leftmost 256 bits are used (FIPS 186-4), so SHA-384 and SHA-512 digests work as well.
     */
    boolean verifies(byte[] hash, BigInteger r, BigInteger s) {
        if (r.signum() <= 0 || r.compareTo(N) >= 0 || s.signum() <= 0 || s.compareTo(N) >= 0) {
            return false;
        }
        BigInteger e = new BigInteger(1, hash.length > 32 ? Arrays.copyOf(hash, 32) : hash);
        BigInteger w = BigIntegers.modOddInverseVar(N, s);
        Scratch k = SCRATCH.get();
        sumOfMultiples(e.multiply(w).mod(N), r.multiply(w).mod(N), k);
        if (isZero(k.z)) {
            return false;
        }
        SecP256R1Field.square(k.z, k.t1, k.tt);
        canonical(k.x);
        if (matches(r, k)) {
            return true;
        }
        BigInteger wrapped = r.add(N);
        return wrapped.compareTo(P_BIG) < 0 && matches(wrapped, k);
    }

    /** Whether the Jacobian X in {@code k.x} equals {@code candidate · Z²} ({@code k.t1} holds Z²). */
    private static boolean matches(BigInteger candidate, Scratch k) {
        SecP256R1Field.multiply(Nat256.fromBigInteger(candidate), k.t1, k.t2, k.tt);
        canonical(k.t2);
        return Nat256.eq(k.t2, k.x);
    }

    /** {@code u1·G + u2·Q} into {@code (k.x, k.y, k.z)}, Jacobian; Z is zero for the point at infinity. */
    void sumOfMultiples(BigInteger u1, BigInteger u2, Scratch k) {
        naf(Nat256.fromBigInteger(u1), k.d1);
        naf(Nat256.fromBigInteger(u2), k.d2);
        Nat256.zero(k.x);
        Nat256.zero(k.y);
        Nat256.zero(k.z);
        for (int t = SPAN - 1; t >= 0; t--) {
            if (!isZero(k.z)) {
                twice(k);
            }
            for (int span = 0; span < SPANS; span++) {
                int a = k.d1[span * SPAN + t];
                if (a != 0) {
                    addAffine(k, GENERATOR, span, a);
                }
                int b = k.d2[span * SPAN + t];
                if (b != 0) {
                    addAffine(k, key, span, b);
                }
            }
        }
    }

    /** The affine point {@code (k.x/k.z², k.y/k.z³)} as BigIntegers, for tests; null for infinity. */
    static BigInteger[] affine(Scratch k) {
        if (isZero(k.z)) {
            return null;
        }
        int[] zInv = new int[8];
        int[] zz = new int[8];
        int[] x = new int[8];
        int[] y = new int[8];
        SecP256R1Field.inv(k.z, zInv);
        SecP256R1Field.square(zInv, zz);
        SecP256R1Field.multiply(k.x, zz, x);
        SecP256R1Field.multiply(zz, zInv, zz);
        SecP256R1Field.multiply(k.y, zz, y);
        canonical(x);
        canonical(y);
        return new BigInteger[] {Nat256.toBigInteger(x), Nat256.toBigInteger(y)};
    }

    /** Per-thread working arrays. */
    static final class Scratch {
        final int[] x = new int[8];
        final int[] y = new int[8];
        final int[] z = new int[8];
        final int[] x2 = new int[8];
        final int[] y2 = new int[8];
        final int[] t1 = new int[8];
        final int[] t2 = new int[8];
        final int[] t3 = new int[8];
        final int[] t4 = new int[8];
        final int[] t5 = new int[8];
        final int[] t6 = new int[8];
        final int[] tt = new int[16];
        final byte[] d1 = new byte[DIGITS];
        final byte[] d2 = new byte[DIGITS];
    }

    static Scratch scratch() {
        return SCRATCH.get();
    }

    /**
     * Width-7 NAF of a 256-bit scalar: {@code sum(digits[i] · 2^i)} equals it, each digit is 0 or odd in -63..63, and
     * any two non-zero digits are at least 7 positions apart.
     */
    static void naf(int[] scalar, byte[] digits) {
        Arrays.fill(digits, (byte) 0);
        int carry = 0;
        int bit = 0;
        while (bit < DIGITS) {
            if (bitsAt(scalar, bit, 1) == carry) {
                bit++;
                continue;
            }
            int count = Math.min(WIDTH, DIGITS - bit);
            int word = bitsAt(scalar, bit, count) + carry;
            carry = (word >> (WIDTH - 1)) & 1;
            word -= carry << WIDTH;
            digits[bit] = (byte) word;
            bit += count;
        }
    }

    private static int bitsAt(int[] scalar, int bit, int count) {
        int limb = bit >>> 5;
        if (limb >= 8) {
            return 0;
        }
        int shift = bit & 31;
        long value = (scalar[limb] & 0xffffffffL) >>> shift;
        if (shift + count > 32 && limb + 1 < 8) {
            value |= (scalar[limb + 1] & 0xffffffffL) << (32 - shift);
        }
        return (int) (value & ((1 << count) - 1));
    }

    /** Odd multiples 1..63 of {@code 2^(65j)·base} for the four spans, affine, x then y per point. */
    private static int[] table(ECPoint base) {
        ECPoint[] points = new ECPoint[SPANS * MULTIPLES];
        ECPoint spanBase = base.normalize();
        for (int span = 0; span < SPANS; span++) {
            ECPoint twice = spanBase.twice();
            ECPoint multiple = spanBase;
            for (int i = 0; i < MULTIPLES; i++) {
                points[span * MULTIPLES + i] = multiple;
                multiple = multiple.add(twice);
            }
            spanBase = spanBase.timesPow2(SPAN);
        }
        base.getCurve().normalizeAll(points);
        int[] table = new int[SPANS * MULTIPLES * POINT];
        for (int i = 0; i < points.length; i++) {
            System.arraycopy(Nat256.fromBigInteger(points[i].getAffineXCoord().toBigInteger()), 0, table, i * POINT, 8);
            System.arraycopy(Nat256.fromBigInteger(points[i].getAffineYCoord().toBigInteger()), 0, table,
                    i * POINT + 8, 8);
        }
        return table;
    }

    /** Doubles {@code (k.x, k.y, k.z)} in place (a = -3; "dbl-2001-b"). Infinity (Z = 0) stays infinity. */
    private static void twice(Scratch k) {
        int[] delta = k.t1;
        int[] gamma = k.t2;
        int[] beta = k.t3;
        int[] alpha = k.t4;
        int[] u = k.t5;
        SecP256R1Field.square(k.z, delta, k.tt);
        SecP256R1Field.square(k.y, gamma, k.tt);
        SecP256R1Field.multiply(k.x, gamma, beta, k.tt);
        // alpha = 3 (X - delta)(X + delta)
        SecP256R1Field.subtract(k.x, delta, u);
        SecP256R1Field.add(k.x, delta, alpha);
        SecP256R1Field.multiply(u, alpha, alpha, k.tt);
        SecP256R1Field.twice(alpha, u);
        SecP256R1Field.add(alpha, u, alpha);
        // Z3 = (Y + Z)^2 - gamma - delta
        SecP256R1Field.add(k.y, k.z, u);
        SecP256R1Field.square(u, u, k.tt);
        SecP256R1Field.subtract(u, gamma, u);
        SecP256R1Field.subtract(u, delta, k.z);
        // X3 = alpha^2 - 8 beta
        SecP256R1Field.twice(beta, beta);
        SecP256R1Field.twice(beta, beta);
        SecP256R1Field.twice(beta, u);
        SecP256R1Field.square(alpha, k.x, k.tt);
        SecP256R1Field.subtract(k.x, u, k.x);
        // Y3 = alpha (4 beta - X3) - 8 gamma^2
        SecP256R1Field.subtract(beta, k.x, beta);
        SecP256R1Field.multiply(alpha, beta, beta, k.tt);
        SecP256R1Field.square(gamma, gamma, k.tt);
        SecP256R1Field.twice(gamma, gamma);
        SecP256R1Field.twice(gamma, gamma);
        SecP256R1Field.twice(gamma, gamma);
        SecP256R1Field.subtract(beta, gamma, k.y);
    }

    /**
     * Adds {@code digit ·} (the table's base of {@code span}) to {@code (k.x, k.y, k.z)} in place, the table point
     * being
     * affine ("madd-2007-bl"). Handles the cases those formulas do not: the accumulator at infinity, the same point
     * (then it doubles), and the opposite point (then the result is infinity).
     */
    private static void addAffine(Scratch k, int[] table, int span, int digit) {
        int at = (span * MULTIPLES + ((Math.abs(digit) - 1) >> 1)) * POINT;
        System.arraycopy(table, at, k.x2, 0, 8);
        System.arraycopy(table, at + 8, k.y2, 0, 8);
        if (digit < 0) {
            SecP256R1Field.negate(k.y2, k.y2);
        }
        if (isZero(k.z)) {
            Nat256.copy(k.x2, k.x);
            Nat256.copy(k.y2, k.y);
            Nat256.zero(k.z);
            k.z[0] = 1;
            return;
        }
        int[] zz = k.t1;
        int[] h = k.t2;
        int[] r = k.t3;
        int[] hh = k.t4;
        int[] j = k.t5;
        int[] v = k.t6;
        SecP256R1Field.square(k.z, zz, k.tt);
        SecP256R1Field.multiply(k.x2, zz, h, k.tt);       // U2
        SecP256R1Field.multiply(k.y2, k.z, r, k.tt);
        SecP256R1Field.multiply(r, zz, r, k.tt);          // S2
        SecP256R1Field.subtract(h, k.x, h);               // H = U2 - X1
        SecP256R1Field.subtract(r, k.y, r);               // S2 - Y1
        if (isZero(h)) {
            if (isZero(r)) {
                twice(k);
            } else {
                Nat256.zero(k.x);
                Nat256.zero(k.y);
                Nat256.zero(k.z);
            }
            return;
        }
        SecP256R1Field.twice(r, r);                       // r = 2 (S2 - Y1)
        SecP256R1Field.square(h, hh, k.tt);               // HH
        SecP256R1Field.twice(hh, v);
        SecP256R1Field.twice(v, v);                       // I = 4 HH
        SecP256R1Field.multiply(h, v, j, k.tt);           // J = H I
        SecP256R1Field.multiply(k.x, v, v, k.tt);         // V = X1 I
        // Z3 = (Z1 + H)^2 - Z1Z1 - HH
        SecP256R1Field.add(k.z, h, k.z);
        SecP256R1Field.square(k.z, k.z, k.tt);
        SecP256R1Field.subtract(k.z, zz, k.z);
        SecP256R1Field.subtract(k.z, hh, k.z);
        // X3 = r^2 - J - 2 V
        SecP256R1Field.square(r, k.x, k.tt);
        SecP256R1Field.subtract(k.x, j, k.x);
        SecP256R1Field.twice(v, hh);
        SecP256R1Field.subtract(k.x, hh, k.x);
        // Y3 = r (V - X3) - 2 Y1 J
        SecP256R1Field.multiply(k.y, j, j, k.tt);
        SecP256R1Field.twice(j, j);
        SecP256R1Field.subtract(v, k.x, v);
        SecP256R1Field.multiply(r, v, v, k.tt);
        SecP256R1Field.subtract(v, j, k.y);
    }

    /** Zero modulo p, whether or not the representation was fully reduced. */
    private static boolean isZero(int[] x) {
        return Nat256.isZero(x) || Nat256.eq(x, P);
    }

    /**
     * Brings a field element below p (the field operations keep it there; this makes the comparisons not rely on it).
     */
    private static void canonical(int[] x) {
        if (Nat256.gte(x, P)) {
            Nat256.sub(x, P, x);
        }
    }
}
