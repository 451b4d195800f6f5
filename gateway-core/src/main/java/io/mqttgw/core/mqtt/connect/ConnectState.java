package io.mqttgw.core.mqtt.connect;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where one connection's CONNECT stands. Each step that waits for an asynchronous answer (the authenticator, the route
 * table, the session store) names its state; an answer or a deadline re-enters on the event loop and counts only
 * while the connection is still in that state, so an answer that arrives late, twice, or after the close changes
 * nothing. Event loop only.
 */
enum ConnectState {
    /** Connected, no CONNECT read yet: the connect timeout runs. */
    AWAITING_CONNECT,
    /** CONNECT passed its checks; the authenticator decides (bounded by {@code auth.timeout}). */
    AUTHENTICATING,
    /** Registered without a certificate: served only once the route table took the route (or the wait ended). */
    ROUTING,
    /** A persistent session is read back from the session store (or the wait ends). */
    RESTORING,
    /** CONNACK accepted was written and the session handlers replaced the CONNECT handler. */
    ESTABLISHED,
    /** Refused, taken over before it began, or closed: nothing that arrives later is acted on. */
    ENDED;

    static {
        AWAITING_CONNECT.next = EnumSet.of(AUTHENTICATING, ENDED);
        AUTHENTICATING.next = EnumSet.of(ROUTING, RESTORING, ESTABLISHED, ENDED);
        ROUTING.next = EnumSet.of(RESTORING, ESTABLISHED, ENDED);
        RESTORING.next = EnumSet.of(ESTABLISHED, ENDED);
        ESTABLISHED.next = EnumSet.noneOf(ConnectState.class);
        ENDED.next = EnumSet.noneOf(ConnectState.class);
    }

    private Set<ConnectState> next;

    /** Whether CONNECT may go from this state to {@code target}. */
    boolean mayMoveTo(ConnectState target) {
        return next.contains(target);
    }

    /** Whether nothing follows this state. */
    boolean terminal() {
        return next.isEmpty();
    }
}
