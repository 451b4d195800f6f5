package io.mqttgw.core.testkit;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A route store that stores nothing and knows no route, for a test to extend with the one answer it is about (a
 * lookup, a verify). Every stage is already complete. Any thread.
 */
public class InertRouteStore implements RouteStore {
    @Override
    public CompletionStage<Void> put(Route route) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> remove(Route route) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Optional<Route>> lookup(String clientId) {
        return CompletableFuture.completedFuture(Optional.empty());
    }
}
