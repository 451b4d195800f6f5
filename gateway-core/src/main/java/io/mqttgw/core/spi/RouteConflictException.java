package io.mqttgw.core.spi;

/**
 * How a {@link RouteStore#put} stage fails when the table holds another node's route for the client id whose identity
 * was proven the other way (certificate or not): the write is refused, the other node's device stays, and this node
 * must not serve the connection. No stack trace: it is an answer, not a fault.
 */
public final class RouteConflictException extends RuntimeException {
    public RouteConflictException(String clientId) {
        super("route of " + clientId + " is held by a connection proven the other way", null, false, false);
    }
}
