package io.mqttgw.routing.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mqttgw.core.spi.Route;
import org.junit.jupiter.api.Test;

class RouteQueueTest {
    @Test
    void refusesAtCapacityAndTakesAgainAfterAPoll() {
        RouteQueue queue = new RouteQueue(2);
        RouteOp a = RouteOp.put(new Route("a", "n", 1, 1, "r"));
        assertEquals(1, queue.offer(a));
        assertEquals(2, queue.offer(RouteOp.put(new Route("b", "n", 2, 1, "r"))));
        assertEquals(-1, queue.offer(RouteOp.put(new Route("c", "n", 3, 1, "r"))));
        assertEquals(2, queue.size());
        assertSame(a, queue.poll());
        assertEquals(2, queue.offer(RouteOp.put(new Route("c", "n", 3, 1, "r"))));
        queue.poll();
        queue.poll();
        assertNull(queue.poll());
        assertEquals(0, queue.size());
    }
}
