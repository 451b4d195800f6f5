package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void keepsEachPublishUntilItsPubAckAndTellsWhetherItWasResent() {
        Outbox o = new Outbox();
        assertTrue(o.add(7, Traffic.HEARTBEAT, 20, 0));
        assertTrue(o.add(8, Traffic.STATUS, 500, 0));
        o.markResent(1);

        assertEquals(Outbox.Ack.FIRST_SEND, o.ack(7));
        assertEquals(Outbox.Ack.AFTER_RESEND, o.ack(8));
        assertEquals(Outbox.Ack.UNKNOWN, o.ack(8), "a second PUBACK for the same id finds nothing");
        assertEquals(0, o.size());
    }

    @Test
    void keepsWhatItResendsInTheOrderFirstSent() {
        Outbox o = new Outbox();
        for (int id = 1; id <= 5; id++) {
            o.add(id, id % 3, 100 * id, 0);
        }
        o.ack(2);
        List<String> left = new ArrayList<>();
        for (int i = 0; i < o.size(); i++) {
            left.add(o.packetId(i) + ":" + o.kind(i) + ":" + o.bytes(i) + ":" + o.resent(i));
        }
        assertEquals(List.of("1:1:100:false", "3:0:300:false", "4:1:400:false", "5:2:500:false"), left);
    }

    @Test
    void keepsEachMessageNumberWithItsEntryThroughAcksAndGrowth() {
        Outbox o = new Outbox();
        for (int id = 1; id <= 9; id++) {
            assertTrue(o.add(id, 0, 20, 0, 100 + id));
        }
        o.ack(1);
        o.ack(5);
        List<String> left = new ArrayList<>();
        for (int i = 0; i < o.size(); i++) {
            left.add(o.packetId(i) + ":" + o.sequence(i));
        }
        assertEquals(List.of("2:102", "3:103", "4:104", "6:106", "7:107", "8:108", "9:109"), left);
    }

    @Test
    void refusesMoreThanItsWindow() {
        Outbox o = new Outbox();
        for (int id = 1; id <= Outbox.CAPACITY; id++) {
            assertTrue(o.add(id, 0, 20, 0));
        }
        assertFalse(o.add(Outbox.CAPACITY + 1, 0, 20, 0));
        assertTrue(o.holds(Outbox.CAPACITY));
        assertFalse(o.holds(Outbox.CAPACITY + 1));
        assertEquals(Outbox.CAPACITY, o.size());
    }

    @Test
    void countsOnlyPublishesWaitingLongerThanTheOverdueAge() {
        Outbox o = new Outbox();
        long start = 1_000 * SECOND;
        o.add(1, 0, 20, start);
        o.add(2, 0, 20, start + 3 * SECOND);
        assertEquals(0, o.olderThan(5 * SECOND, start + 4 * SECOND));
        assertEquals(1, o.olderThan(5 * SECOND, start + 6 * SECOND));
        assertEquals(2, o.olderThan(5 * SECOND, start + 9 * SECOND));
        o.ack(1);
        assertEquals(1, o.olderThan(5 * SECOND, start + 9 * SECOND), "an acknowledged one is no longer overdue");
    }

    @Test
    void agesCorrectlyAcrossANegativeNanoTime() {
        Outbox o = new Outbox();
        long start = -2 * SECOND;
        o.add(1, 0, 20, start);
        assertEquals(0, o.olderThan(5 * SECOND, start + 2 * SECOND));
        assertEquals(1, o.olderThan(5 * SECOND, start + 7 * SECOND));
    }

    @Test
    void clearGivesUpEveryEntryAndSaysHowMany() {
        Outbox o = new Outbox();
        o.add(1, 0, 20, 0);
        o.add(2, 0, 20, 0);
        assertEquals(2, o.clear());
        assertEquals(0, o.size());
        assertFalse(o.holds(1));
    }

    @Test
    void aNewPacketIdSkipsOnesStillWaitingForTheirPubAck() {
        Device d = new Device(0, "d0", null, null);
        d.nextPacketId = 65_534;
        d.outbox.add(65_535, 0, 20, 0);
        d.outbox.add(1, 0, 20, 0);
        assertEquals(2, d.nextPacketId());
    }
}
