package io.mqttgw.core.spi;

import java.util.List;

/**
 * What a reconciliation of the route table against this node's live sessions found ({@link RouteStore#verify}).
 * Differences seen once are looked at again after a short settle time, so a connect or disconnect whose route work
 * was still queued is not reported; what is left differed twice.
 *
 * @param nodeId      the node that checked (its own sessions and index; the scan covers every node's routes)
 * @param complete    false when the time bound ran out first: what was found so far is reported
 * @param live        live sessions of this node compared with their routes
 * @param indexed     entries of this node's route index compared with its live sessions
 * @param scanned     route keys of the whole table read by the scan for routes naming dead nodes
 * @param differences at most {@link #MAX_LISTED} of them, in the order found
 * @param found       how many differences there were in all (may exceed the list)
 * @param repaired    how many of them were repaired (only when asked to)
 * @param tookMillis  how long the check took
 */
public record RouteCheck(String nodeId, boolean complete, long live, long indexed, long scanned,
                         List<Difference> differences, long found, long repaired, long tookMillis) {
    /** The most differences one answer lists. */
    public static final int MAX_LISTED = 1000;

    /** A check was asked for while another one ran on the same node. */
    public static final class AlreadyRunning extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public AlreadyRunning() {
            super("a route table check is running on this node");
        }
    }

    /** What is wrong with one route. */
    public enum Kind {
        /** This node holds the device but the table has no route for it. */
        MISSING,
        /** The route names this node with another epoch than its live session has. */
        WRONG_EPOCH,
        /** The route names this node, which holds no session of that epoch for the device. */
        STALE,
        /** The route names a node whose heartbeat is gone: a dead (or never known) node. */
        DEAD_NODE,
        /** This node holds the device but the route names another, live node: one of the two sessions is stale. */
        HELD_ELSEWHERE
    }

    /**
     * One difference.
     *
     * @param routeNode  the node the route names, null when there is no route
     * @param routeEpoch the route's epoch, 0 when there is none
     * @param liveEpoch  the epoch of this node's live session of the device, 0 when it holds none
     * @param repaired   whether a repair was asked and Redis took it
     */
    public record Difference(Kind kind, String clientId, String routeNode, long routeEpoch, long liveEpoch,
                             boolean repaired) {
    }
}
