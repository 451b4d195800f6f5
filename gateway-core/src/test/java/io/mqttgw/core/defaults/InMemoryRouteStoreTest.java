package io.mqttgw.core.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InMemoryRouteStoreTest {
    private final InMemoryRouteStore store = new InMemoryRouteStore();

    private static Route route(String clientId, String node, long epoch) {
        return new Route(clientId, node, epoch, 1_000L * epoch, "10.0.0.1:" + epoch);
    }

    private Optional<Route> lookup(String clientId) {
        return store.lookup(clientId).toCompletableFuture().join();
    }

    @Test
    void storesAndLooksUpARoute() {
        Route r = route("dev-1", "node-a", 5);
        assertTrue(store.put(r).toCompletableFuture().isDone());
        assertEquals(Optional.of(r), lookup("dev-1"));
        assertEquals(Optional.empty(), lookup("dev-2"));
        assertEquals(1, store.size());
    }

    @Test
    void aNewerEpochReplacesTheRoute() {
        store.put(route("dev-1", "node-a", 5));
        Route newer = route("dev-1", "node-a", 6);
        store.put(newer);
        assertEquals(Optional.of(newer), lookup("dev-1"));
    }

    @Test
    void anOlderEpochWriteDoesNotReplaceANewerRoute() {
        Route newer = route("dev-1", "node-a", 6);
        store.put(newer);
        store.put(route("dev-1", "node-a", 5)); // a late write of the connection it replaced
        assertEquals(Optional.of(newer), lookup("dev-1"));
    }

    @Test
    void aRouteFromAnotherNodeReplacesWhateverItsEpoch() {
        store.put(route("dev-1", "node-a", 900));
        Route moved = route("dev-1", "node-b", 3); // epochs are per node
        store.put(moved);
        assertEquals(Optional.of(moved), lookup("dev-1"));
    }

    @Test
    void removesTheExactRouteItNames() {
        Route r = route("dev-1", "node-a", 5);
        store.put(r);
        assertTrue(store.remove(r).toCompletableFuture().isDone());
        assertEquals(Optional.empty(), lookup("dev-1"));
        assertEquals(0, store.size());
    }

    @Test
    void fencedRemoveOfAnOldEpochLeavesTheNewerRoute() {
        Route old = route("dev-1", "node-a", 5);
        Route newer = route("dev-1", "node-a", 6);
        store.put(old);
        store.put(newer);

        store.remove(old); // the kicked connection's delete arrives after the takeover's write

        assertEquals(Optional.of(newer), lookup("dev-1"));
    }

    @Test
    void removeOfAnotherNodesRouteLeavesIt() {
        Route onB = route("dev-1", "node-b", 5);
        store.put(onB);
        store.remove(route("dev-1", "node-a", 5));
        assertEquals(Optional.of(onB), lookup("dev-1"));
    }

    @Test
    void removeOfAnUnknownRouteDoesNothing() {
        store.remove(route("nobody", "node-a", 1));
        assertEquals(0, store.size());
    }

    @Test
    void concurrentWritesKeepTheHighestEpoch() throws Exception {
        Thread[] writers = new Thread[4];
        for (int t = 0; t < writers.length; t++) {
            int offset = t;
            writers[t] = new Thread(() -> {
                for (int e = offset; e < 4000; e += writers.length) {
                    store.put(route("dev-1", "node-a", e));
                }
            });
            writers[t].start();
        }
        for (Thread w : writers) {
            w.join(5000);
        }
        assertEquals(3999, lookup("dev-1").orElseThrow().epoch());
    }
}
