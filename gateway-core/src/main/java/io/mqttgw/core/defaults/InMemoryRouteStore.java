package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes of a single node in a {@link ConcurrentHashMap}, with the same fencing as a shared store: a write never
 * replaces a route with a higher epoch, and a delete only removes the exact route it names. Thread-safe.
 */
public final class InMemoryRouteStore implements RouteStore {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();

    @Override
    public CompletionStage<Void> put(Route route) {
        routes.merge(route.clientId(), route, (old, now) -> old.nodeId().equals(now.nodeId())
                && old.epoch() > now.epoch() ? old : now);
        return DONE;
    }

    @Override
    public CompletionStage<Void> remove(Route route) {
        routes.remove(route.clientId(), route);
        return DONE;
    }

    @Override
    public CompletionStage<Optional<Route>> lookup(String clientId) {
        return CompletableFuture.completedFuture(Optional.ofNullable(routes.get(clientId)));
    }

    public int size() {
        return routes.size();
    }
}
