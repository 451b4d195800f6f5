package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The operations another node forwards to this one, run by the code that runs them when an operator calls this node:
 * the downlink through the node's {@link DownlinkTarget} (so a QoS 1 outcome comes after the device's PUBACK), the
 * kick through {@link AdministrativeDisconnect}. Each one is written to the event log here as well, with the asking
 * node and the correlation id: the asking node's line names the operator, this one shows what reached the device
 * this node holds. Thread-safe; called on the route store's threads.
 */
public final class HolderOperations implements OperationForwarding.Holder {
    private static final String NOT_HERE = "refused: client not connected to this node";

    private final ChannelRegistry registry;
    private final DownlinkTarget downlink;
    private final SessionStore sessions;
    private final GatewayMetrics metrics;
    private final EventLog events;

    public HolderOperations(ChannelRegistry registry, DownlinkTarget downlink, SessionStore sessions,
                            GatewayMetrics metrics, EventLog events) {
        this.registry = registry;
        this.downlink = downlink;
        this.sessions = sessions;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public CompletionStage<DownlinkTarget.Report> downlink(OperationForwarding.Origin origin, DownlinkMessage message) {
        String what = OperationsHandler.describe(message, false);
        if (registry.find(message.clientId()) == null) {
            audit(origin, what, NOT_HERE);
            return CompletableFuture.completedFuture(null);
        }
        CompletionStage<DownlinkTarget.Report> outcome;
        try {
            outcome = downlink.deliverReporting(message);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        return outcome.whenComplete((r, e) -> audit(origin, what, e != null ? "failed: " + OperatorCall.causeOf(e)
                : name(r.outcome()) + (r.retained() == null ? "" : " retained=" + name(r.retained()))));
    }

    /**
     * Audits a forwarded downlink this node refused before running it, for {@code reason}: written as the line of
     * one it ran, so the holder's log shows every request it answered. Any thread; needs no running node.
     */
    public static void refused(OperationForwarding.Origin origin, DownlinkMessage message, String reason) {
        EventLog.forwardedOperationRefused(origin.nodeId(), OperationForwarding.correlation(origin.correlationId()),
                OperationsHandler.describe(message, false), reason);
    }

    /** As {@link #refused(OperationForwarding.Origin, DownlinkMessage, String)}, for a kick. */
    public static void refused(OperationForwarding.Origin origin, String clientId, boolean discardSession,
                               String reason) {
        EventLog.forwardedOperationRefused(origin.nodeId(), OperationForwarding.correlation(origin.correlationId()),
                kickWhat(clientId, discardSession), reason);
    }

    private static String kickWhat(String clientId, boolean discardSession) {
        return "kick client=" + clientId + " discard-session=" + discardSession;
    }

    @Override
    public CompletionStage<OperationForwarding.Kick> kick(OperationForwarding.Origin origin, String clientId,
                                                          boolean discardSession) {
        String what = kickWhat(clientId, discardSession);
        Channel channel = registry.find(clientId);
        if (channel == null) {
            audit(origin, what, NOT_HERE);
            return CompletableFuture.completedFuture(null);
        }
        return AdministrativeDisconnect.kick(channel, discardSession, sessions, metrics)
                .thenApply(o -> new OperationForwarding.Kick(o.closed(), o.sessionDiscarded()))
                .whenComplete((k, e) -> audit(origin, what, e != null ? "failed: " + OperatorCall.causeOf(e)
                        : !k.closed() ? NOT_HERE : "kicked" + (k.sessionDiscarded() ? ", session discarded" : "")));
    }

    private void audit(OperationForwarding.Origin origin, String what, String outcome) {
        events.forwardedOperation(origin.nodeId(), OperationForwarding.correlation(origin.correlationId()), what,
                outcome);
    }

    private static String name(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
