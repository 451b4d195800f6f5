package io.mqttgw.core.registry;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.netty.channel.Channel;
import java.util.function.Consumer;

/**
 * The node's sessions as a route store sees them. A takeover from another node is fenced by epoch: only the exact
 * session whose route the other node replaced is closed, on its own event loop, so a late message can never close a
 * device's newer connection here. Thread-safe.
 */
public final class LocalRoutes implements RouteEvents {
    private final ChannelRegistry registry;

    public LocalRoutes(ChannelRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void takenOver(String clientId, long epoch) {
        Channel channel = registry.find(clientId);
        if (channel == null) {
            return;
        }
        channel.eventLoop().execute(() -> {
            Route route = ConnectionContext.of(channel).route();
            if (route != null && route.epoch() == epoch && channel.isActive()) {
                DeviceDisconnector.close(channel, DisconnectReason.TAKEOVER);
            }
        });
    }

    @Override
    public void refused(String clientId, long epoch) {
        Channel channel = registry.find(clientId);
        if (channel == null) {
            return;
        }
        channel.eventLoop().execute(() -> {
            ConnectionContext context = ConnectionContext.of(channel);
            Route route = context.route();
            if (route != null && route.epoch() == epoch && channel.isActive()) {
                context.endForIdentityConflict(channel);
            }
        });
    }

    @Override
    public void forEachLiveRoute(Consumer<Route> action) {
        // the route is set before the channel is registered, and never changes: safe to read from any thread
        registry.forEach(channel -> {
            Route route = ConnectionContext.of(channel).route();
            if (route != null && channel.isActive()) {
                action.accept(route);
            }
        });
    }
}
