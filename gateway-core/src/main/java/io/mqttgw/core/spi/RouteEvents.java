package io.mqttgw.core.spi;

import java.util.function.Consumer;

/**
 * The node's side of the route table, given to a {@link RouteStore} at start: what it can ask of the node. Callable
 * from any thread; nothing here blocks.
 */
public interface RouteEvents {
    /**
     * Another node now holds {@code clientId}: close this node's session for it if it is still the one with
     * {@code epoch} (the epoch of this node's route that the other node replaced). A session with another epoch is a
     * newer connection and stays.
     */
    void takenOver(String clientId, long epoch);

    /**
     * The table refused this node's route for {@code clientId} with {@code epoch}: another node holds the id for a
     * connection whose identity was proven the other way (certificate or not). Close that session, without its will,
     * if it is still the one with {@code epoch}.
     */
    default void refused(String clientId, long epoch) {
    }

    /** Every route of a session open on this node, for resynchronising the table after the store was unavailable. */
    void forEachLiveRoute(Consumer<Route> action);
}
