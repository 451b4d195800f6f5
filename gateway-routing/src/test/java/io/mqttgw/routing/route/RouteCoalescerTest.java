package io.mqttgw.routing.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteCoalescerTest {
    final RouteCoalescer coalescer = new RouteCoalescer();

    static Route route(String id, long epoch) {
        return new Route(id, "node-a", epoch, 1, "r");
    }

    @Test
    void aWriteFollowedByTheDeleteOfTheSameConnectionCancelsOutAndCompletesBoth() {
        RouteOp put = RouteOp.put(route("d", 1));
        RouteOp delete = RouteOp.delete(route("d", 1));
        assertEquals(RouteCoalescer.Outcome.QUEUED, coalescer.add(put));
        assertEquals(RouteCoalescer.Outcome.CANCELLED, coalescer.add(delete));
        assertTrue(coalescer.isEmpty());
        assertEquals(0, coalescer.operations());
        assertTrue(put.isDone() && !put.isCompletedExceptionally());
        assertTrue(delete.isDone() && !delete.isCompletedExceptionally());
    }

    @Test
    void aDeleteOfAnotherConnectionDoesNotCancelTheWrite() {
        coalescer.add(RouteOp.put(route("d", 2)));
        assertEquals(RouteCoalescer.Outcome.QUEUED, coalescer.add(RouteOp.delete(route("d", 1))));
        RouteCoalescer.Pending p = coalescer.peek(10).get(0).getValue();
        assertEquals(2, p.put().epoch());
        assertEquals(1, p.delete().epoch());
        assertEquals(4, p.commands());
        assertEquals(2, coalescer.operations());
    }

    @Test
    void aNewerWriteSupersedesAnOlderOneWhichCompletesWhenTheNewerIsStored() {
        RouteOp older = RouteOp.put(route("d", 1));
        RouteOp newer = RouteOp.put(route("d", 2));
        coalescer.add(older);
        assertEquals(RouteCoalescer.Outcome.SUPERSEDED, coalescer.add(newer));
        List<Map.Entry<String, RouteCoalescer.Pending>> batch = coalescer.peek(10);
        assertSame(newer, batch.get(0).getValue().put());
        assertFalse(older.isDone());
        coalescer.remove(batch);
        batch.forEach(e -> e.getValue().complete());
        assertTrue(older.isDone() && newer.isDone());
        assertTrue(coalescer.isEmpty());
    }

    @Test
    void cancellingTheNewestConnectionKeepsTheDeleteOfAnOlderOne() {
        // put(1) was flushed earlier; now: put(2) (same device reconnected), delete(1), delete(2)
        coalescer.add(RouteOp.put(route("d", 2)));
        coalescer.add(RouteOp.delete(route("d", 1)));
        coalescer.add(RouteOp.delete(route("d", 2)));
        RouteCoalescer.Pending p = coalescer.peek(10).get(0).getValue();
        assertNull(p.put());
        assertEquals(1, p.delete().epoch());
        assertEquals(1, coalescer.operations());
    }

    @Test
    void devicesLeaveInTheOrderTheyArrivedAndPeekLeavesThemUntilRemoved() {
        for (int i = 0; i < 5; i++) {
            coalescer.add(RouteOp.put(route("d" + i, 1)));
        }
        coalescer.add(RouteOp.delete(route("d0", 0)));
        List<Map.Entry<String, RouteCoalescer.Pending>> first = coalescer.peek(3);
        assertEquals(List.of("d0", "d1", "d2"), first.stream().map(Map.Entry::getKey).toList());
        assertEquals(List.of("d0", "d1", "d2"), coalescer.peek(3).stream().map(Map.Entry::getKey).toList());
        coalescer.remove(first);
        assertEquals(List.of("d3", "d4"), coalescer.peek(3).stream().map(Map.Entry::getKey).toList());
        assertEquals(2, coalescer.operations());
    }

    @Test
    void failAllFailsEveryWaitingOperation() {
        RouteOp put = RouteOp.put(route("d", 1));
        RouteOp older = RouteOp.delete(route("e", 1));
        coalescer.add(put);
        coalescer.add(older);
        List<RouteOp> failed = new java.util.ArrayList<>();
        coalescer.failAll(new IllegalStateException("closed"), failed::add);
        assertEquals(2, failed.size());
        assertTrue(put.isCompletedExceptionally() && older.isCompletedExceptionally());
        assertTrue(coalescer.isEmpty());
    }
}
