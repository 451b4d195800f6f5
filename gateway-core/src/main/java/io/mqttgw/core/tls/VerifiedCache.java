package io.mqttgw.core.tls;

import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lean verifier's memory of verified device certificates, keyed by the SHA-256 of their DER, up to a capacity:
 * when full, about an eighth of it is dropped (arbitrary entries) by the thread that inserts; the cost is bounded by
 * the capacity and amortised over many inserts. One instance may serve the verifiers of successive contexts of the
 * same CAs ({@link LeanVerifier#reloaded}). Thread-safe; read and written concurrently by all event loops.
 */
final class VerifiedCache {
    /** SHA-256 of a certificate's DER, with the hash code taken from its first bytes. */
    static final class Fingerprint {
        private final byte[] digest;
        private final int hash;

        Fingerprint(byte[] digest) {
            this.digest = digest;
            this.hash = (digest[0] & 0xff) << 24 | (digest[1] & 0xff) << 16 | (digest[2] & 0xff) << 8
                    | digest[3] & 0xff;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fingerprint f && Arrays.equals(digest, f.digest);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final int capacity;
    private final ConcurrentHashMap<Fingerprint, LeanVerifier.Verified> cache = new ConcurrentHashMap<>();

    VerifiedCache(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    LeanVerifier.Verified get(Fingerprint fingerprint) {
        return cache.get(fingerprint);
    }

    int size() {
        return cache.size();
    }

    void remember(Fingerprint fingerprint, LeanVerifier.Verified verified) {
        if (cache.size() >= capacity) {
            int drop = Math.max(1, capacity / 8);
            Iterator<Fingerprint> it = cache.keySet().iterator();
            while (drop-- > 0 && it.hasNext()) {
                it.next();
                it.remove();
            }
        }
        cache.put(fingerprint, verified);
    }
}
