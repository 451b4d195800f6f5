package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The resync's bookkeeping between flushes; its chunks against Redis are covered by RedisRouteStoreIT. */
class RouteResyncTest {
    private final RouteTableMetrics metrics = new RouteTableMetrics(new SimpleMeterRegistry(), () -> 0, () -> 0);
    private final RouteResync resync = new RouteResync(RedisRouteSettings.from(TestRouteStores.values(null)), "n1",
            new RouteKeys("mqttgw:"), null, null, metrics, null, null);

    private static final RouteEvents EVENTS = new RouteEvents() {
        @Override
        public void takenOver(String clientId, long epoch) {
        }

        @Override
        public void forEachLiveRoute(Consumer<Route> action) {
            action.accept(new Route("d1", "n1", 1, 0, "127.0.0.1"));
        }
    };

    @Test
    void isDueAtStartupButWaitsForTheGatewayToHandItsSessions() {
        assertTrue(resync.shouldStart());
        resync.start(null);
        assertTrue(resync.shouldStart());
        assertFalse(resync.running());
        assertEquals(0, metrics.resyncs.count());
        resync.start(EVENTS);
        assertTrue(resync.running());
        assertFalse(resync.shouldStart());
        assertEquals(1, metrics.resyncs.count());
    }

    @Test
    void overflowDuringAResyncStaysReportedAndWaitsForTheRunUnderWay() {
        resync.start(EVENTS);
        resync.overflowed();
        resync.overflowed();
        assertTrue(resync.overflowPending());
        assertEquals(2, resync.droppedSinceResync());
        assertFalse(resync.shouldStart());
        assertTrue(resync.hasWork());
    }

    @Test
    void redisComingBackDropsTheRunUnderWayAndWantsANewOne() {
        resync.start(EVENTS);
        resync.restart();
        assertFalse(resync.running());
        assertTrue(resync.shouldStart());
    }
}
