package io.mqttgw.auth.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.auth.resilience.IdentityGuard.Admission;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdentityGuardTest {
    private final AtomicLong now = new AtomicLong(5_000);

    @Test
    void keepsAtMostAboutMaxTrackedDenyRecords() {
        IdentityGuard guard = new IdentityGuard(1, 1, TimeUnit.MINUTES.toNanos(1), 1000, now::get, Runnable::run);
        for (int i = 0; i < 100_000; i++) {
            guard.denied(IdentityGuard.identityOf("dev-" + i, null));
        }
        assertTrue(guard.tracked() <= 1000 + 64, "tracked " + guard.tracked());
        assertEquals(Admission.HELD, guard.tryAcquire(IdentityGuard.identityOf("dev-99999", null)));
    }

    @Test
    void aZeroWindowNeverHolds() {
        IdentityGuard guard = new IdentityGuard(1, 1, 0, 1000, now::get, Runnable::run);
        String id = IdentityGuard.identityOf("dev-1", null);
        for (int i = 0; i < 10; i++) {
            guard.denied(id);
        }
        assertEquals(Admission.CALL, guard.tryAcquire(id));
        assertEquals(0, guard.tracked());
    }

    @Test
    void permitsComeBackAndLeaveNoEntryBehind() {
        IdentityGuard guard = new IdentityGuard(2, 5, TimeUnit.MINUTES.toNanos(1), 1000, now::get, Runnable::run);
        String id = IdentityGuard.identityOf("dev-1", null);
        assertEquals(Admission.CALL, guard.tryAcquire(id));
        assertEquals(Admission.CALL, guard.tryAcquire(id));
        assertEquals(Admission.BUSY, guard.tryAcquire(id));
        guard.release(id);
        assertEquals(Admission.CALL, guard.tryAcquire(id));
        guard.release(id);
        guard.release(id);
        assertEquals(0, guard.busyIdentities());
    }

    @Test
    void aCertificateIdentityDiffersFromTheBareClientId() {
        assertNotEquals(IdentityGuard.identityOf("dev-1", null), IdentityGuard.identityOf("dev-1", "ab12"));
        assertNotEquals(IdentityGuard.identityOf("ab12\ndev-1", null), IdentityGuard.identityOf("dev-1", "ab12"));
    }
}
