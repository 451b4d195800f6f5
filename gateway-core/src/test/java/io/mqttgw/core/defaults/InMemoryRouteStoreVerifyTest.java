package io.mqttgw.core.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteCheck.Kind;
import io.mqttgw.core.spi.RouteEvents;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class InMemoryRouteStoreVerifyTest {
    private final Map<String, Route> live = new ConcurrentHashMap<>();
    private final InMemoryRouteStore store = new InMemoryRouteStore("node-1");

    InMemoryRouteStoreVerifyTest() {
        store.start(new RouteEvents() {
            @Override
            public void takenOver(String clientId, long epoch) {
            }

            @Override
            public void forEachLiveRoute(Consumer<Route> action) {
                live.values().forEach(action);
            }
        });
    }

    private static Route route(String id, long epoch) {
        return new Route(id, "node-1", epoch, 1, "127.0.0.1:1");
    }

    private RouteCheck verify(boolean repair) throws Exception {
        return store.verify(repair).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Map<String, Kind> kinds(RouteCheck check) {
        Map<String, Kind> out = new TreeMap<>();
        check.differences().forEach(d -> out.put(d.clientId(), d.kind()));
        return out;
    }

    @Test
    void reportsMissingStaleAndWrongEpochRoutesAndRepairsThem() throws Exception {
        live.put("ok", route("ok", 1));
        store.put(route("ok", 1));
        live.put("missing", route("missing", 2));
        store.put(route("stale", 3));
        live.put("older", route("older", 5));
        store.put(route("older", 4));

        RouteCheck found = verify(false);
        assertEquals(Map.of("missing", Kind.MISSING, "stale", Kind.STALE, "older", Kind.WRONG_EPOCH), kinds(found));
        assertEquals("node-1", found.nodeId());
        assertEquals(0, found.repaired());
        assertEquals(Optional.empty(), store.lookup("missing").toCompletableFuture().join(), "no repair asked");

        RouteCheck repaired = verify(true);
        assertEquals(3, repaired.repaired());
        assertTrue(repaired.differences().stream().allMatch(RouteCheck.Difference::repaired));
        assertEquals(Optional.of(route("missing", 2)), store.lookup("missing").toCompletableFuture().join());
        assertEquals(Optional.empty(), store.lookup("stale").toCompletableFuture().join());
        assertEquals(Optional.of(route("older", 5)), store.lookup("older").toCompletableFuture().join());
        assertEquals(Map.of(), kinds(verify(false)));
    }
}
