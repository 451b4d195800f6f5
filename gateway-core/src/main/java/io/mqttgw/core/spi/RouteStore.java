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

    /**
     * Compares the route table with this node's live sessions and, where the table is shared, looks for routes that
     * name dead nodes; with {@code repair}, writes the missing routes and deletes the stale ones (fenced deletes, so a
     * route rewritten meanwhile stays). Runs off the event loops and within a time bound; one check at a time (a
     * second call while one runs fails with {@link RouteCheck.AlreadyRunning}). Stores that cannot check fail the
     * stage with {@link UnsupportedOperationException}.
     */
    default CompletionStage<RouteCheck> verify(boolean repair) {
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getSimpleName() + " cannot verify the route table"));
    }

    /**
     * Sending operator operations to the node that holds a device, where the table is shared and the store can carry
     * them; empty otherwise (the operator is told which node to call).
     */
    default Optional<OperationForwarding> forwarding() {
        return Optional.empty();
    }

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
