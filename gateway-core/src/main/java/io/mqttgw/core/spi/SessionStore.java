package io.mqttgw.core.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What outlives a connection: persistent sessions (MQTT 3.1.1 clean session 0, MQTT 5.0 a session expiry interval:
 * the subscriptions and the QoS 1/2 downlink messages not yet acknowledged) and retained downlink messages. A store
 * shared by the nodes (Redis) lets a device
 * find its session on whichever node it reconnects to.
 *
 * <p>Called from event loops: every method only starts its work and returns (never blocks); stages complete on the
 * store's own threads. Calls for one client id come from one event loop at a time, in order; a store keeps that
 * order per client id.
 */
public interface SessionStore {
    /** An expiry interval meaning "as long as the store keeps sessions" ({@code session.expiry}). */
    long LONGEST = Long.MAX_VALUE;

    /**
     * Called once before the listeners open, with what the store may ask of the node: a store that can lose its data
     * uses it to write the sessions of connected devices again.
     */
    default void start(LiveSessions node) {
    }

    /**
     * A device connected. With {@code cleanStart}, any stored session is discarded first (the stage may complete
     * before the delete is done). Then, unless {@code cleanStart} with {@code expiryMillis} 0 (nothing is to outlive
     * the connection: the answer is {@link StoredSession#NONE}), the answer is the stored session (subscriptions and
     * pending messages, oldest first), which is created if there was none ({@code present} false) and does not expire
     * while the device is connected.
     *
     * @param cleanStart   MQTT 3.1.1 clean session 1, MQTT 5.0 clean start
     * @param expiryMillis how long the session is to outlive the connection: the MQTT 5.0 session expiry interval
     *                     (0: it ends with the connection), {@link #LONGEST} for a 3.1.1 persistent session; the store
     *                     caps it at {@code session.expiry}. {@link #disconnected} names the interval that applies
     * @param epoch        the connection's route epoch, which {@link #disconnected} names again
     */
    CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch);

    /**
     * The connection of a stored session ended: the session expires {@code expiryMillis} (capped at
     * {@code session.expiry}; 0: at once) from now, unless a newer connection (another epoch) has opened it since,
     * which keeps it alive.
     *
     * @param expiryMillis the interval CONNECT asked for, or the one the device's DISCONNECT changed it to;
     *                     {@link #LONGEST} for a 3.1.1 persistent session
     */
    CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis);

    /** MQTT 3.1.1: clean session 1 discards and keeps nothing, clean session 0 keeps the session for the longest. */
    default CompletionStage<StoredSession> open(String clientId, boolean cleanSession, long epoch) {
        return open(clientId, cleanSession, cleanSession ? 0 : LONGEST, epoch);
    }

    /** MQTT 3.1.1: the persistent session expires {@code session.expiry} from now. */
    default CompletionStage<Void> disconnected(String clientId, long epoch) {
        return disconnected(clientId, epoch, LONGEST);
    }

    /**
     * Replaces the stored subscriptions (filter to what was granted: QoS and, for MQTT 5.0, the subscription options
     * that matter to a gateway) of a persistent session.
     */
    CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions);

    /**
     * Appends a QoS 1/2 message to the pending messages of the persistent session of {@code message.clientId()}: it
     * is kept until {@link #remove} (acknowledged, expired or given up), up to {@code session.max-pending} per
     * device. A device without a persistent session gets nothing stored.
     */
    CompletionStage<Append> append(DownlinkMessage message);

    /** Forgets a pending message: acknowledged by the device, expired, or given up. */
    CompletionStage<Void> remove(String clientId, String messageId);

    /** Stores the retained message of {@code message.topic()}; an empty payload deletes it (MQTT-3.3.1-10). */
    CompletionStage<Void> retain(DownlinkMessage message);

    /** The retained messages whose topics match {@code topicFilter} (which may have wildcards). */
    CompletionStage<List<DownlinkMessage>> retained(String topicFilter);

    /**
     * What an operator may see of the persistent session stored under {@code clientId} (a session key), without
     * opening or touching it: empty when there is none (or it expired). Stores that cannot tell fail the stage with
     * {@link UnsupportedOperationException}.
     */
    default CompletionStage<Optional<SessionSummary>> describe(String clientId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getSimpleName() + " cannot describe sessions"));
    }

    /**
     * A stored session as the operator API shows it.
     *
     * @param connected       whether a connection holds it now (it does not expire meanwhile)
     * @param expiresAtMillis when it expires if nobody resumes it (epoch milliseconds), 0 while connected
     * @param subscriptions   topic filter to granted QoS, in subscription order
     * @param pending         messages kept for the device, not yet acknowledged
     */
    record SessionSummary(boolean connected, long expiresAtMillis, Map<String, Subscription> subscriptions,
            int pending) {
    }

    /**
     * Where MQTT 5.0 wills wait for their delay so that the fleet publishes each once: empty for a store the other
     * nodes do not share (the node then keeps them in memory).
     */
    default Optional<DelayedWillStore> delayedWills() {
        return Optional.empty();
    }

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    default CompletionStage<Void> close() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A device's stored session.
     *
     * @param present       whether a session existed (CONNACK's session present flag)
     * @param subscriptions topic filter to its granted subscription, in subscription order
     * @param pending       messages not yet acknowledged, oldest first
     */
    record StoredSession(boolean present, Map<String, Subscription> subscriptions, List<StoredMessage> pending) {
        public static final StoredSession NONE = new StoredSession(false, Map.of(), List.of());
    }

    /** A pending message and the id the store gave it. */
    record StoredMessage(String id, DownlinkMessage message) {
    }

    /**
     * What {@link #append} did.
     *
     * @param status what became of the message
     * @param id     the message's id when {@link Status#STORED}, else null
     */
    record Append(Status status, String id) {
        public static final Append NO_SESSION = new Append(Status.NO_SESSION, null);
        public static final Append FULL = new Append(Status.FULL, null);

        public enum Status {
            /** Kept until removed. */
            STORED,
            /** The device has no persistent session: nothing stored. */
            NO_SESSION,
            /** {@code session.max-pending} messages are pending already: refused. */
            FULL
        }

        public static Append stored(String id) {
            return new Append(Status.STORED, id);
        }
    }
}
