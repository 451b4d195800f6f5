package io.mqttgw.core.admin;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The operations another node forwards to this one, run by the code that runs them when an operator calls this node:
 * the downlink through the node's {@link DownlinkTarget} (so a QoS 1 outcome comes after the device's PUBACK), the
 * kick through {@link AdministrativeDisconnect}. Thread-safe; called on the route store's threads.
 */
public final class HolderOperations implements OperationForwarding.Holder {
    private final ChannelRegistry registry;
    private final DownlinkTarget downlink;
    private final SessionStore sessions;
    private final GatewayMetrics metrics;

    public HolderOperations(ChannelRegistry registry, DownlinkTarget downlink, SessionStore sessions,
                            GatewayMetrics metrics) {
        this.registry = registry;
        this.downlink = downlink;
        this.sessions = sessions;
        this.metrics = metrics;
    }

    @Override
    public boolean holds(String clientId) {
        return registry.find(clientId) != null;
    }

    @Override
    public CompletionStage<DownlinkTarget.Report> downlink(DownlinkMessage message) {
        return downlink.deliverReporting(message);
    }

    @Override
    public CompletionStage<OperationForwarding.Kick> kick(String clientId, boolean discardSession) {
        Channel channel = registry.find(clientId);
        if (channel == null) {
            return CompletableFuture.completedFuture(new OperationForwarding.Kick(false, false));
        }
        return AdministrativeDisconnect.kick(channel, discardSession, sessions, metrics)
                .thenApply(o -> new OperationForwarding.Kick(o.closed(), o.sessionDiscarded()));
    }
}
