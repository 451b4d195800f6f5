package io.mqttgw.core.spi;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * MQTT 5.0 wills waiting for their will delay interval, kept where every node sees them (a shared session store), so
 * that one is published once by the fleet when its delay has passed, and never when its device resumes the session on
 * any node first, and published at once when a clean start on any node ends its session (the store's session open
 * takes it and hands it to that node's publisher). A node that dies leaves its armed wills to the others. Offered
 * by a {@link SessionStore} through {@link SessionStore#delayedWills()}; without one each node keeps its wills in
 * memory.
 *
 * <p>Called from event loops: every method only starts its work and returns; stages complete on the store's threads.
 */
public interface DelayedWillStore {
    /** What {@link #arm} found. */
    enum Armed {
        /** Kept: published by one node when due unless the session resumes first. */
        ARMED,
        /** A newer connection resumed the session already: the will is not to be published. */
        RESUMED,
        /** A newer connection's clean start (or the loss of the session) ended it: the caller publishes now. */
        ENDED
    }

    /**
     * The connection of epoch {@code epoch} ended without a normal DISCONNECT: keeps {@code will} until
     * {@code delayMillis} from now, unless a newer connection has opened the session of {@code sessionKey} since.
     */
    CompletionStage<Armed> arm(String sessionKey, long epoch, long delayMillis, UplinkMessage will);

    /** Starts handing the wills that fall due, each to exactly one node's {@code publisher}. */
    void start(WillPublisher publisher);

    /**
     * Publishes a will as the device's last PUBLISH through the node's uplink path. Never blocks; thread-safe.
     */
    @FunctionalInterface
    interface WillPublisher {
        void publish(UplinkMessage will);
    }

    /** The store of {@code sessions}, if it offers one. */
    static Optional<DelayedWillStore> of(SessionStore sessions) {
        return sessions == null ? Optional.empty() : sessions.delayedWills();
    }
}
