package io.mqttgw.routing.route;

import io.mqttgw.core.spi.Route;
import java.util.concurrent.CompletableFuture;

/**
 * One queued route write or delete, and the stage its caller got: completed when Redis has it, when it was coalesced
 * away, or failed when it was dropped. One object per operation. Completed on the flusher thread, so whoever adds a
 * dependent stage must not block in it.
 */
public final class RouteOp extends CompletableFuture<Void> {
    public enum Kind { PUT, DELETE }

    private final Kind kind;
    private final Route route;

    private RouteOp(Kind kind, Route route) {
        this.kind = kind;
        this.route = route;
    }

    public static RouteOp put(Route route) {
        return new RouteOp(Kind.PUT, route);
    }

    public static RouteOp delete(Route route) {
        return new RouteOp(Kind.DELETE, route);
    }

    public Kind kind() {
        return kind;
    }

    public Route route() {
        return route;
    }

    public String clientId() {
        return route.clientId();
    }

    public long epoch() {
        return route.epoch();
    }

    @Override
    public String toString() {
        return kind + " " + route.clientId() + "@" + route.epoch();
    }
}
