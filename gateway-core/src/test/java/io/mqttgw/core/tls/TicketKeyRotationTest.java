package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.defaults.LocalTicketKeySource;
import io.mqttgw.core.spi.TicketKeySource;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TicketKeyRotationTest {
    private static final long HOUR = 3_600_000;

    private final AtomicLong now = new AtomicLong(1_000 * HOUR + 10);
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicReference<List<byte[]>> applied = new AtomicReference<>(List.of());
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private TicketKeyRotation rotation(TicketKeySource source, Duration sessionTimeout) {
        TicketKeyRotation r = new TicketKeyRotation(Duration.ofHours(1), sessionTimeout, source, applied::set,
                now::get, meters);
        r.start(scheduler);
        return r;
    }

    /** Runs a refresh on the scheduler and waits until it and the answers it asked for have been handled. */
    private void refresh(TicketKeyRotation r) throws Exception {
        scheduler.submit(r::refresh).get(5, TimeUnit.SECONDS);
        scheduler.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    private static boolean holds(List<byte[]> keys, byte[] key) {
        return keys.stream().anyMatch(k -> Arrays.equals(k, key));
    }

    private double counter(String name) {
        return meters.get(name).counter().count();
    }

    /** A cluster's shared store: answers with its own key per epoch, or fails while down. */
    private static final class FakeSharedSource implements TicketKeySource {
        final AtomicBoolean down = new AtomicBoolean();

        static byte[] clusterKey(long epoch) {
            byte[] key = new byte[KEY_BYTES];
            Arrays.fill(key, (byte) epoch);
            key[0] = 42;
            return key;
        }

        @Override
        public CompletionStage<byte[]> keyFor(long epoch, byte[] candidate, Duration keepFor) {
            return down.get() ? CompletableFuture.failedFuture(new IllegalStateException("redis down"))
                    : CompletableFuture.completedFuture(clusterKey(epoch));
        }

        @Override
        public String describe() {
            return "fake shared";
        }

        @Override
        public boolean shared() {
            return true;
        }
    }

    @Test
    void encryptsWithTheCurrentEpochsKeyAndKeepsTheNextAndPreviousForDecryption() {
        rotation(new FakeSharedSource(), Duration.ofHours(1));
        List<byte[]> keys = applied.get();
        assertArrayEquals(FakeSharedSource.clusterKey(1000), keys.get(0), "the current epoch's key encrypts");
        assertTrue(holds(keys, FakeSharedSource.clusterKey(1001)), "a node slightly ahead may use the next one");
        assertTrue(holds(keys, FakeSharedSource.clusterKey(999)), "tickets of the previous hour still decrypt");
        assertEquals(3, keys.size());
        assertEquals(1.0, meters.get("mqttgw.tls.ticket.key.shared").gauge().value());
    }

    @Test
    void rotatesAtTheEpochBoundaryAndOldTicketsStillDecryptWithinTheGrace() throws Exception {
        TicketKeyRotation r = rotation(new LocalTicketKeySource(), Duration.ofHours(1));
        byte[] first = applied.get().get(0);
        refresh(r);
        assertArrayEquals(first, applied.get().get(0), "no rotation within the hour");
        assertEquals(0.0, counter("mqttgw.tls.ticket.key.rotations"));

        now.addAndGet(HOUR);
        refresh(r);
        assertFalse(Arrays.equals(first, applied.get().get(0)), "a new key encrypts");
        assertTrue(holds(applied.get(), first), "the previous key still decrypts");
        assertEquals(1.0, counter("mqttgw.tls.ticket.key.rotations"));

        now.addAndGet(2 * HOUR);
        refresh(r);
        assertFalse(holds(applied.get(), first), "past the grace (session timeout), the old key is gone");
    }

    @Test
    void keepsMorePreviousKeysWhenSessionsOutliveARotation() {
        TicketKeyRotation r = rotation(new LocalTicketKeySource(), Duration.ofMinutes(150));
        assertEquals(3, r.previousKept(), "ceil(2.5 h / 1 h)");
        assertEquals(5, applied.get().size());
    }

    @Test
    void keepsItsKeysAndServesWithItsOwnWhileTheSharedSourceIsDown() throws Exception {
        FakeSharedSource source = new FakeSharedSource();
        TicketKeyRotation r = rotation(source, Duration.ofHours(1));
        List<byte[]> before = applied.get();
        source.down.set(true);
        refresh(r);
        assertEquals(before.size(), applied.get().size());
        assertArrayEquals(before.get(0), applied.get().get(0), "an outage within the hour changes nothing");

        now.addAndGet(HOUR);
        refresh(r);
        byte[] own = applied.get().get(0);
        assertArrayEquals(FakeSharedSource.clusterKey(1001), own,
                "the next epoch's shared key was fetched before the outage and now encrypts");
        assertTrue(holds(applied.get(), FakeSharedSource.clusterKey(1000)));

        now.addAndGet(HOUR);
        refresh(r);
        assertFalse(Arrays.equals(FakeSharedSource.clusterKey(1002), applied.get().get(0)),
                "no shared key for this epoch: the node's own encrypts");
        assertEquals(0.0, meters.get("mqttgw.tls.ticket.key.shared").gauge().value());
        assertTrue(counter("mqttgw.tls.ticket.key.source.failures") > 0);
        byte[] local = applied.get().get(0);

        source.down.set(false);
        refresh(r);
        assertArrayEquals(FakeSharedSource.clusterKey(1002), applied.get().get(0), "back to the shared key");
        assertTrue(holds(applied.get(), local), "tickets made with the node's own key during the outage still resume");
        assertEquals(1.0, meters.get("mqttgw.tls.ticket.key.shared").gauge().value());
    }
}
