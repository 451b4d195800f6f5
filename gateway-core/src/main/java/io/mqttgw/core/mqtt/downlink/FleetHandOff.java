package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A message for a device that is not connected to this node, handed to the node the route table names as its holder,
 * through the route store's {@link OperationForwarding}: the path an operator's downlink sent to the wrong node takes,
 * so the holder runs it as its own (subscriptions, granted QoS, session, audit line). A record that reached this node
 * after its device moved (it was routed here before a crash, a takeover or a drain) then reaches the device where it
 * is online now, instead of waiting in its persistent session for a reconnect that may never come.
 *
 * <p>At least once: the stage completes only when the holder answered with what became of the message there, or when
 * no other node took it, and then the caller keeps or refuses it here as before. A holder that is dead, unreachable,
 * busy or too slow, or that no longer holds the device, gets the message stored here instead, so a QoS 1 message the
 * holder did deliver just before its answer was lost may reach the device twice (as QoS 1 allows), never zero times.
 *
 * <p>Only asynchronous calls; the stage completes on the route store's threads. Bounded by the route lookup's and the
 * forwarded request's timeouts, and in number by half the forwarding's own bound ({@link
 * OperationForwarding#maxInFlight}): a node restarting onto a backlog of moved records would otherwise take every slot
 * and leave operators' downlinks and kicks answered busy; past its half a message is stored here at once. Thread-safe.
 */
public final class FleetHandOff {
    private static final Logger LOG = LoggerFactory.getLogger(FleetHandOff.class);

    private final String nodeId;
    private final RouteStore routes;
    private final OperationForwarding forwarding;
    private final Duration forwardTimeout;
    private final Duration lookupTimeout;
    private final GatewayMetrics metrics;
    private final int maxInFlight;
    private final AtomicInteger inFlight = new AtomicInteger();

    /**
     * @param forwardTimeout how long the holder may take to answer: at least its own delivery bound (retries until
     *                       given up), or a slow device's message would be stored here as well as delivered there
     * @param lookupTimeout  bound on asking the route table which node holds the device
     */
    public FleetHandOff(String nodeId, RouteStore routes, OperationForwarding forwarding, Duration forwardTimeout,
                        Duration lookupTimeout, GatewayMetrics metrics) {
        this.nodeId = nodeId;
        this.routes = routes;
        this.forwarding = forwarding;
        this.forwardTimeout = forwardTimeout;
        this.lookupTimeout = lookupTimeout;
        this.metrics = metrics;
        this.maxInFlight = Math.max(1, forwarding.maxInFlight() / 2);
    }

    /**
     * Hands {@code message} to the node holding its device, if another node holds it. Never fails: completes with the
     * holder's outcome, or with null when the message is still this node's to keep or refuse (no route, a route naming
     * this node, or the holder did not take it).
     */
    CompletionStage<Outcome> handOff(DownlinkMessage message) {
        return lookup(message.clientId()).thenCompose(route -> route.isPresent()
                        && !route.get().nodeId().equals(nodeId) ? forward(route.get().nodeId(), message)
                        : CompletableFuture.<Outcome>completedFuture(null))
                .exceptionally(error -> {
                    metrics.downlinkMoved("fallback");
                    LOG.debug("downlink for {}: cannot tell which node holds it ({}); kept on this node",
                            message.clientId(), error.toString());
                    return null;
                });
    }

    private CompletableFuture<Optional<Route>> lookup(String clientId) {
        CompletionStage<Optional<Route>> stage;
        try {
            stage = routes.lookup(clientId);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        // a copy: orTimeout on the store's own future would fail it for its other users too
        return stage.toCompletableFuture().thenApply(r -> r).orTimeout(lookupTimeout.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<Outcome> forward(String holder, DownlinkMessage message) {
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            metrics.downlinkMoved("fallback");
            LOG.debug("downlink for {}: {} hand-offs wait for their holders already; kept on this node",
                    message.clientId(), maxInFlight);
            return CompletableFuture.completedFuture(null);
        }
        long correlationId = forwarding.newCorrelationId();
        CompletionStage<OperationForwarding.Forwarded<DownlinkTarget.Report>> stage;
        try {
            stage = forwarding.downlink(holder, correlationId, message, forwardTimeout);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return stage.toCompletableFuture().handle((forwarded, error) -> {
            inFlight.decrementAndGet();
            if (error == null && forwarded.outcome() != null) {
                metrics.downlinkMoved("forwarded");
                LOG.debug("downlink for {} handed to node {} correlation={}: {}", message.clientId(), holder,
                        OperationForwarding.correlation(correlationId), forwarded.outcome().outcome());
                return forwarded.outcome().outcome();
            }
            metrics.downlinkMoved("fallback");
            LOG.debug("downlink for {} not taken by node {} correlation={} ({}); kept on this node",
                    message.clientId(), holder, OperationForwarding.correlation(correlationId),
                    error == null ? "it no longer holds the device" : error.toString());
            return null;
        });
    }
}
