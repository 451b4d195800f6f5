package io.mqttgw.auth.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CacheMaintenanceTest {
    @Test
    void runsHandedOverUpkeepOnItsOwnThread() throws InterruptedException {
        try (CacheMaintenance maintenance = CacheMaintenance.start()) {
            CountDownLatch ran = new CountDownLatch(1);
            String[] thread = new String[1];
            maintenance.execute(() -> {
                thread[0] = Thread.currentThread().getName();
                ran.countDown();
            });
            assertTrue(ran.await(15, TimeUnit.SECONDS));
            assertEquals("auth-cache", thread[0]);
        }
    }

    @Test
    void refusesPastItsLimitSoCaffeineDoesTheUpkeepOnTheCaller() throws InterruptedException {
        try (CacheMaintenance maintenance = CacheMaintenance.start()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            maintenance.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(started.await(15, TimeUnit.SECONDS));
            for (int i = 0; i < 8; i++) {
                maintenance.execute(() -> { });
            }
            assertThrows(RejectedExecutionException.class, () -> maintenance.execute(() -> { }));
            release.countDown();
        }
    }

    @Test
    void refusesOnceClosed() {
        CacheMaintenance maintenance = CacheMaintenance.start();
        maintenance.close();
        assertThrows(RejectedExecutionException.class, () -> maintenance.execute(() -> { }));
    }
}
