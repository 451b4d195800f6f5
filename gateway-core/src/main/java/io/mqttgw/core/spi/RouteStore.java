package io.mqttgw.core.spi;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The table of which node holds which device. {@link #put} and {@link #remove} are called on an event loop
 * for every connect and disconnect: they must only enqueue (O(1), never block) and complete when stored.
 * {@link #remove} is fenced: it removes the route only if it still names the same node and epoch.
 */
public interface RouteStore {
    /** Called once before the listeners open, with what the store may ask of the node (cross-node takeover). */
    default void start(RouteEvents events) {
    }

    CompletionStage<Void> put(Route route);

    CompletionStage<Void> remove(Route route);

    CompletionStage<Optional<Route>> lookup(String clientId);

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    /** How full the store's queue is, 0 to 1; an overload signal. */
    default double pressure() {
        return 0;
    }

    /** Flushes what is queued and releases resources; the stage completes when done. */
    default CompletionStage<Void> close() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
}
