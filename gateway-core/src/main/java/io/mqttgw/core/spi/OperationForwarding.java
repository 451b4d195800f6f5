package io.mqttgw.core.spi;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Operator operations sent on to the node that holds the device, offered by a shared {@link RouteStore} through
 * {@link RouteStore#forwarding()}: an operator may call any node of the fleet, and the holder runs the downlink or
 * kick as if it had been called itself and sends its outcome back. Without it, a node answers with the holder's id
 * and the operator calls that node.
 *
 * <p>Every method only starts its work and returns; stages complete on the store's threads. A forwarded request
 * waits at most its {@code timeout}; then the stage fails with {@link java.util.concurrent.TimeoutException}.
 */
public interface OperationForwarding {

    /** Starts answering the requests other nodes forward to this one; until then they are refused as busy. */
    void serve(Holder node);

    /** Sends {@code message} to its device on {@code nodeId}; completes with what became of it there. */
    CompletionStage<Forwarded<DownlinkTarget.Report>> downlink(String nodeId, DownlinkMessage message,
                                                               Duration timeout);

    /** Kicks {@code clientId} on {@code nodeId}; completes with what the kick did there. */
    CompletionStage<Forwarded<Kick>> kick(String nodeId, String clientId, boolean discardSession, Duration timeout);

    /** What the holder runs for a forwarded request: the same code as a request sent to it directly. Any thread. */
    interface Holder {
        /** Whether the device has a session on this node now. */
        boolean holds(String clientId);

        CompletionStage<DownlinkTarget.Report> downlink(DownlinkMessage message);

        CompletionStage<Kick> kick(String clientId, boolean discardSession);
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

    /** The holder had its bound of forwarded requests in flight and refused this one. */
    final class Busy extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Busy(String message) {
            super(message, null, false, false);
        }
    }
}
