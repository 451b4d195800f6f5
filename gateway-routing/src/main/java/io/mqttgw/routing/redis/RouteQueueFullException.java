package io.mqttgw.routing.redis;

/** The stage of a route operation dropped because the queue was full. One shared instance, without a stack. */
public final class RouteQueueFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final RouteQueueFullException INSTANCE = new RouteQueueFullException();

    private RouteQueueFullException() {
        super("route queue full: operation dropped (counted; the node resynchronises its routes later)", null,
                false, false);
    }
}
