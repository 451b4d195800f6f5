package io.mqttgw.core.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The per-thread digest gives what a fresh one gives, call after call and on every thread. */
class CertificateSha256Test {
    @Test
    void matchesAFreshDigestOnEveryCallFromEveryThread() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            Future<?>[] runs = new Future<?>[4];
            for (int t = 0; t < runs.length; t++) {
                long seed = t;
                runs[t] = threads.submit(() -> {
                    Random random = new Random(seed);
                    for (int i = 0; i < 2_000; i++) {
                        byte[] der = new byte[random.nextInt(1_500)];
                        random.nextBytes(der);
                        assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(der), CertificateSha256.of(der));
                    }
                    return null;
                });
            }
            for (Future<?> run : runs) {
                run.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
