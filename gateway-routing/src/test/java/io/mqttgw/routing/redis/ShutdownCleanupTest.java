package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.route.RouteOp;
import io.mqttgw.routing.route.RouteQueue;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** What is left queued when the store closed; the clean-up of the routes in Redis is covered by RedisRouteStoreIT. */
class ShutdownCleanupTest {
    private final RouteTableMetrics metrics = new RouteTableMetrics(new SimpleMeterRegistry(), () -> 0, () -> 0);
    private final ShutdownCleanup cleanup = new ShutdownCleanup(RedisRouteSettings.from(TestRouteStores.values(null)),
            "n1", new RouteKeys("mqttgw:"), null, null, metrics, null);

    @Test
    void operationsQueuedWithoutACleanUpFailAsNotStoredAndAreCounted() {
        RouteQueue queue = new RouteQueue(16);
        Route route = new Route("d1", "n1", 1, 0, "127.0.0.1");
        RouteOp put = RouteOp.put(route);
        RouteOp delete = RouteOp.delete(route);
        queue.offer(put);
        queue.offer(delete);

        assertEquals(0, cleanup.settleQueued(queue));

        assertSame(ShutdownCleanup.CLOSED, assertThrows(ExecutionException.class, put::get).getCause());
        assertSame(ShutdownCleanup.CLOSED, assertThrows(ExecutionException.class, delete::get).getCause());
        assertEquals(2, cleanup.abandoned());
        assertEquals(1, metrics.putAbandoned.count());
        assertEquals(1, metrics.deleteAbandoned.count());
        assertEquals(0, queue.size());
    }
}
