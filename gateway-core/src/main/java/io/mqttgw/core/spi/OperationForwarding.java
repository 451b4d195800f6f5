package io.mqttgw.core.spi;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionStage;

/**
 * Operator operations sent on to the node that holds the device, offered by a shared {@link RouteStore} through
 * {@link RouteStore#forwarding()}: an operator may call any node of the fleet, and the holder runs the downlink or
 * kick as if it had been called itself and sends its outcome back. Without it, a node answers with the holder's id
 * and the operator calls that node. A downlink message from any source that reaches a node its device has left takes
 * the same way to the holder.
 *
 * <p>Every method only starts its work and returns; stages complete on the store's threads. A forwarded request
 * waits at most its {@code timeout}; then the stage fails with {@link java.util.concurrent.TimeoutException}.
 */
public interface OperationForwarding {

    /** Starts answering the requests other nodes forward to this one; until then they are refused as busy. */
    void serve(Holder node);

    /**
     * A new correlation id for one request: the asking node writes it in its audit line before it sends the request,
     * the holder in its own, so the two lines join.
     */
    long newCorrelationId();

    /** The most requests this node waits for at once; past it a request fails at once with {@link Busy}. */
    default int maxInFlight() {
        return Integer.MAX_VALUE;
    }

    /** Sends {@code message} to its device on {@code nodeId}; completes with what became of it there. */
    CompletionStage<Forwarded<DownlinkTarget.Report>> downlink(String nodeId, long correlationId,
                                                               DownlinkMessage message, Duration timeout);

    /** Kicks {@code clientId} on {@code nodeId}; completes with what the kick did there. */
    CompletionStage<Forwarded<Kick>> kick(String nodeId, long correlationId, String clientId, boolean discardSession,
                                          Duration timeout);

    /** How a correlation id is written in logs and answers: 16 hexadecimal digits. */
    static String correlation(long correlationId) {
        return String.format(Locale.ROOT, "%016x", correlationId);
    }

    /**
     * What the holder runs for a forwarded request: the same code as a request sent to it directly, audited on the
     * holder with the asking node and the correlation id. Any thread.
     */
    interface Holder {
        /**
         * Completes with what became of the message, or with null when the device has no session on this node (then
         * nothing was done).
         */
        CompletionStage<DownlinkTarget.Report> downlink(Origin origin, DownlinkMessage message);

        /** Completes with what the kick did, or with null when the device has no session on this node. */
        CompletionStage<Kick> kick(Origin origin, String clientId, boolean discardSession);
    }

    /** Who asked the holder: the asking node and the correlation id of its request. */
    record Origin(String nodeId, long correlationId) {
    }

    /** What a kick did: whether a session was open to close, and whether the stored session was discarded. */
    record Kick(boolean closed, boolean sessionDiscarded) {
    }

    /**
     * The holder's answer.
     *
     * @param outcome the outcome, or null when the holder no longer held the device when the request came
     */
    record Forwarded<T>(String nodeId, T outcome) {
    }

    /**
     * The holder is gone (its route not removed yet): the request was not delivered, so nothing happened on any node.
     * Reported once the fleet found the holder dead, and where the store can tell sooner that nobody listens.
     */
    final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Unreachable(String message) {
            super(message, null, false, false);
        }
    }

    /** The holder had its bound of forwarded requests in flight and refused this one. */
    final class Busy extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Busy(String message) {
            super(message, null, false, false);
        }
    }
}
