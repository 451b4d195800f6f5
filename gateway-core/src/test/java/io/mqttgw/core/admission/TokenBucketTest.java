package io.mqttgw.core.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);

    private int take(TokenBucket bucket, int attempts) {
        int taken = 0;
        for (int i = 0; i < attempts; i++) {
            if (bucket.tryAcquire()) {
                taken++;
            }
        }
        return taken;
    }

    @Test
    void givesABurstThenTheRate() {
        TokenBucket bucket = new TokenBucket(100, 10, now::get);
        assertEquals(10, take(bucket, 50), "a full bucket holds the burst");
        assertFalse(bucket.tryAcquire());
        now.addAndGet(50_000_000L);
        assertEquals(5, take(bucket, 50), "50 ms at 100/s refills 5");
    }

    @Test
    void neverSavesMoreThanTheBurstWhileIdle() {
        TokenBucket bucket = new TokenBucket(100, 10, now::get);
        now.addAndGet(3_600_000_000_000L);
        assertEquals(10, take(bucket, 100));
    }

    @Test
    void sharesTokensCorrectlyBetweenThreads() throws InterruptedException {
        TokenBucket bucket = new TokenBucket(1000, 1000, now::get);
        AtomicLong taken = new AtomicLong();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> taken.addAndGet(take(bucket, 1000)));
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(1000, taken.get(), "no token is handed out twice and none is lost");
        assertTrue(!bucket.tryAcquire());
    }

    @Test
    void takesFractionsOfATokenAndGivesThemBack() {
        TokenBucket bucket = new TokenBucket(100, 10, now::get);
        assertEquals(10, take(bucket, 50));
        assertFalse(bucket.tryAcquire(0.25), "empty");
        bucket.refund(0.75);
        assertTrue(bucket.tryAcquire(0.25));
        assertTrue(bucket.tryAcquire(0.5));
        assertFalse(bucket.tryAcquire(0.25), "exactly what was refunded, no more");
    }

    @Test
    void aRefundNeverRaisesTheBucketAboveItsBurst() {
        TokenBucket bucket = new TokenBucket(100, 10, now::get);
        bucket.refund(1000);
        assertEquals(10.0, bucket.available(), 1e-9);
        assertEquals(10, take(bucket, 50));
    }
}
