package io.mqttgw.auth.resilience;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Per-identity bounds on calls to the auth service, so one identity cannot cost the service or the gateway more
 * than a fixed share whatever credentials it tries:
 * <ul>
 *   <li>at most {@code maxInFlight} calls of an identity wait in the call limiter or for their answer at once, so
 *       one identity cannot fill the limiter (and push every other CONNECT to {@code auth.http.on-failure});</li>
 *   <li>at most {@code deniedCalls} calls of an identity end in a deny within {@code windowNanos} of the first
 *       one; then the identity is held: its CONNECTs that the cache cannot answer make no call until the window
 *       ends. A deny cached per password does not stop a device that changes its password on every try; this
 *       does.</li>
 * </ul>
 * An identity is a client id together with how it is proven ({@link #identityOf}), so that a stranger without the
 * certificate can neither hold nor busy a device that proves itself with one. Deny records are kept for at most
 * {@code maxTracked} identities in a Caffeine cache (beyond the bound, those least likely to be seen again go: an
 * evicted identity starts a fresh window, which bounds memory and costs at most another {@code deniedCalls}
 * calls); its upkeep runs on the {@code maintenance} executor. The in-flight counts need no bound of their own:
 * each belongs to a call the limiter holds, and the limiter is bounded. Thread-safe; never blocks beyond the short
 * per-key lock of a map update.
 */
public final class IdentityGuard {
    /** What a CONNECT that needs a call may do. */
    public enum Admission {
        /** Call; the caller holds one of the identity's in-flight permits and must {@link #release} it. */
        CALL,
        /** Too many denies of this identity in the window: answer without a call. */
        HELD,
        /** The identity already has its calls in flight: answer without a call. */
        BUSY
    }

    private final int maxInFlight;
    private final int deniedCalls;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Integer> inFlight = new ConcurrentHashMap<>();
    private final Cache<String, Record> records;

    /**
     * @param maxInFlight calls of one identity at once (queued in the limiter or awaiting the answer)
     * @param deniedCalls denied calls of one identity per window before it is held
     * @param windowNanos the window, from its first deny; 0 turns holding off
     * @param maxTracked  bound on identities with a deny record
     * @param nanoClock   monotonic time in nanoseconds ({@code System::nanoTime} outside tests)
     * @param maintenance where the record cache's upkeep runs
     */
    public IdentityGuard(int maxInFlight, int deniedCalls, long windowNanos, int maxTracked, LongSupplier nanoClock,
                         Executor maintenance) {
        this.maxInFlight = maxInFlight;
        this.deniedCalls = deniedCalls;
        this.windowNanos = windowNanos;
        this.nanoClock = nanoClock;
        this.records = Caffeine.newBuilder().maximumSize(Math.max(1, maxTracked)).executor(maintenance).build();
    }

    /**
     * The identity of a CONNECT: its client id and the SHA-256 of its certificate, or the client id alone without
     * one. A device that proves itself with a certificate is thus counted apart from anyone who only claims its
     * client id (who would need its private key to share its record).
     */
    public static String identityOf(String clientId, String fingerprint) {
        return fingerprint == null ? "-\n" + clientId : fingerprint + '\n' + clientId;
    }

    /** Whether {@code identity} may call now; on {@link Admission#CALL} one in-flight permit is taken. */
    public Admission tryAcquire(String identity) {
        if (isHeld(identity)) {
            return Admission.HELD;
        }
        boolean[] taken = {false};
        inFlight.compute(identity, (k, n) -> {
            int current = n == null ? 0 : n;
            if (current >= maxInFlight) {
                return n;
            }
            taken[0] = true;
            return current + 1;
        });
        return taken[0] ? Admission.CALL : Admission.BUSY;
    }

    /** Gives back the permit of a call that {@link #tryAcquire} admitted, once it is decided. */
    public void release(String identity) {
        inFlight.computeIfPresent(identity, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** The service denied a call of {@code identity}. */
    public void denied(String identity) {
        if (windowNanos <= 0) {
            return;
        }
        long now = nanoClock.getAsLong();
        records.asMap().compute(identity, (k, r) -> {
            if (r == null || now - r.windowStart >= windowNanos) {
                return new Record(now);
            }
            r.denies++;
            return r;
        });
    }

    /** The service allowed a call of {@code identity}: the real device got through, its record is dropped. */
    public void allowed(String identity) {
        if (windowNanos <= 0) {
            return;
        }
        records.invalidate(identity);
    }

    private boolean isHeld(String identity) {
        if (windowNanos <= 0) {
            return false;
        }
        long now = nanoClock.getAsLong();
        boolean[] held = {false};
        records.asMap().compute(identity, (k, r) -> {
            if (r == null || now - r.windowStart >= windowNanos) {
                return null;
            }
            held[0] = r.denies >= deniedCalls;
            return r;
        });
        return held[0];
    }

    /** Identities with a deny record, expired ones not yet dropped included. */
    public long tracked() {
        return records.estimatedSize();
    }

    /** Identities with a call in flight. */
    public int busyIdentities() {
        return inFlight.size();
    }

    /** Denies of one identity in its current window; changed only inside the map's compute for its key. */
    private static final class Record {
        final long windowStart;
        int denies = 1;

        Record(long windowStart) {
            this.windowStart = windowStart;
        }
    }
}
