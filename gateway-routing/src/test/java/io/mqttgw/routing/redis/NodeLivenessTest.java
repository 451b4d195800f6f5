package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The rule that makes a node dead, on a clock the test sets (milliseconds after {@link #t0}). */
class NodeLivenessTest {
    static final long TTL_MS = 3000;
    static final long LOOK = TimeUnit.MILLISECONDS.toNanos(1);
    final long t0 = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    final NodeLiveness liveness = new NodeLiveness(TimeUnit.MILLISECONDS.toNanos(TTL_MS));

    long at(long millis) {
        return t0 + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    boolean missingAt(long millis) {
        return liveness.observe("b", null, -2, LOOK, at(millis));
    }

    boolean beatAt(long millis, String value, long ttlMillis) {
        return liveness.observe("b", value, ttlMillis, LOOK, at(millis));
    }

    /** Looks every 100 ms from {@code from} (inclusive) to {@code to} (exclusive) and finds the key missing. */
    boolean missingFromTo(long from, long to) {
        boolean dead = false;
        for (long t = from; t < to; t += 100) {
            dead |= missingAt(t);
        }
        return dead;
    }

    @Test
    void aKeyFoundMissingIsNotDeadUntilWatchedStandingStillForTheWholeTtl() {
        assertFalse(missingFromTo(0, TTL_MS));
        assertFalse(missingAt(TTL_MS - 1));
        assertTrue(missingAt(TTL_MS));
    }

    @Test
    void aKeyThatAppearsAgainIsAliveAndNeedsAnotherFullTtlToDie() {
        assertFalse(beatAt(0, "run 1", TTL_MS));
        assertFalse(missingFromTo(100, 2000));
        assertFalse(beatAt(2000, "run 2", TTL_MS));
        assertFalse(missingFromTo(2100, 2000 + TTL_MS));
        assertTrue(missingAt(2000 + TTL_MS));
    }

    @Test
    void aHeartbeatWhoseValueAdvancesWhileTheKeyIsOftenMissingIsNeverDead() {
        long seq = 0;
        for (long t = 0; t < 10 * TTL_MS; t += 100) {
            boolean dead = t % 1000 == 0 ? beatAt(t, "run " + ++seq, TTL_MS) : missingAt(t);
            assertFalse(dead, "declared dead at " + t + " ms");
        }
    }

    @Test
    void aValueThatStopsChangingCountsFromItsLastChange() {
        assertFalse(beatAt(0, "run 1", TTL_MS));
        // the same value, its time to live running down: no refresh since
        for (long t = 100; t < 2000; t += 100) {
            assertFalse(beatAt(t, "run 1", TTL_MS - t));
        }
        assertFalse(missingFromTo(2000, TTL_MS));
        assertTrue(missingAt(TTL_MS));
    }

    @Test
    void aRefreshThatKeepsTheValueCountsAsAdvancingAsEarlierGatewaysWriteIt() {
        assertFalse(beatAt(0, "run", TTL_MS));
        // refreshed at 1000 ms with the same value: at 1100 ms it has TTL - 100 left, not TTL - 1100
        assertFalse(beatAt(1100, "run", TTL_MS - 100));
        assertFalse(missingFromTo(1200, 1100 + TTL_MS));
        assertTrue(missingAt(1100 + TTL_MS));
    }

    @Test
    void afterRedisCameBackAFullTtlOfFreshObservationComesFirst() {
        assertFalse(missingFromTo(0, 2000));
        // Redis failed or came back: what was seen before does not count
        liveness.restart(at(2000));
        assertFalse(missingFromTo(2050, 2050 + TTL_MS));
        assertTrue(missingAt(2050 + TTL_MS));
    }

    @Test
    void aGapInTheObservationLongerThanTheTtlStartsItOver() {
        assertFalse(missingAt(0));
        assertFalse(missingAt(TTL_MS + 1000));
        assertFalse(missingAt(2 * TTL_MS + 999));
        assertTrue(missingAt(2 * TTL_MS + 1000));
    }

    @Test
    void aPresentKeyIsNeverDeadWhateverItsHistory() {
        assertFalse(beatAt(0, "run 1", 10 * TTL_MS));
        for (long t = 100; t < 5 * TTL_MS; t += 100) {
            assertFalse(beatAt(t, "run 1", 10 * TTL_MS - t), "declared dead at " + t + " ms with its key present");
        }
    }
}
