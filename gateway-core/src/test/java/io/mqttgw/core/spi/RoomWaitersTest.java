package io.mqttgw.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoomWaitersTest {
    private final List<String> told = new ArrayList<>();

    private final class Waiter extends RoomWait {
        private final String name;

        Waiter(String name) {
            this.name = name;
        }

        @Override
        protected void room() {
            told.add(name);
        }
    }

    @Test
    void wakesNobodyUntilTheChargeFallsUnderTheLowMarkThenAboutAsManyAsTheRoomTakesInOrder() {
        RoomWaiters waiters = new RoomWaiters(1000, 500);
        Waiter a = new Waiter("a");
        Waiter b = new Waiter("b");
        Waiter c = new Waiter("c");
        Waiter d = new Waiter("d");
        for (Waiter w : List.of(a, b, c, d)) {
            waiters.add(w, 200, 1000);
        }
        waiters.released(800);
        waiters.released(500);
        assertEquals(List.of(), told, "the first freed bytes wake nobody");
        waiters.released(450);
        assertEquals(List.of("a", "b"), told, "550 free: two of 200 each");
        waiters.released(420);
        assertEquals(List.of("a", "b"), told, "580 free, 400 of it promised to those already told");
        waiters.done(a);
        waiters.released(420);
        assertEquals(List.of("a", "b", "c"), told);
        assertEquals(1, waiters.waiting());
    }

    @Test
    void aWaiterToldAndRefusedAgainGoesBackToTheFront() {
        RoomWaiters waiters = new RoomWaiters(1000, 500);
        Waiter a = new Waiter("a");
        Waiter b = new Waiter("b");
        Waiter c = new Waiter("c");
        waiters.add(a, 800, 1000);
        waiters.add(b, 800, 1000);
        waiters.add(c, 800, 1000);
        waiters.released(400);
        assertEquals(List.of("a"), told, "the head goes even when it needs more than the room");
        waiters.add(a, 800, 1000);
        waiters.released(0);
        assertEquals(List.of("a", "a"), told, "a, refused again, is ahead of b");
    }

    @Test
    void aWaiterIsQueuedOnceAndLeavesWhenDone() {
        RoomWaiters waiters = new RoomWaiters(1000, 500);
        Waiter a = new Waiter("a");
        waiters.add(a, 100, 1000);
        waiters.add(a, 100, 1000);
        assertEquals(1, waiters.waiting(), "one entry per waiter");
        waiters.done(a);
        assertEquals(0, waiters.waiting());
        waiters.released(0);
        assertEquals(List.of(), told, "a waiter that left (its connection closed) is not kept nor told");
    }

    @Test
    void aReleaseBeforeTheWaiterQueuedIsNotMissed() {
        RoomWaiters waiters = new RoomWaiters(1000, 500);
        waiters.add(new Waiter("a"), 100, 0);
        assertEquals(List.of("a"), told);
    }

    @Test
    void wakeAllTellsEveryWaiter() {
        RoomWaiters waiters = new RoomWaiters(1000, 500);
        waiters.add(new Waiter("a"), 100, 1000);
        waiters.add(new Waiter("b"), 100, 1000);
        waiters.wakeAll();
        assertEquals(List.of("a", "b"), told);
        assertEquals(0, waiters.waiting());
    }
}
