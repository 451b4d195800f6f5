package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.netty.channel.ChannelHandlerContext;

/**
 * Opens and closes the books on a connection: counts it open, and when it goes inactive counts the disconnect
 * reason, removes the registry entry if it still holds this channel, queues the fenced route delete, starts the expiry
 * of a persistent session (at the MQTT 5.0 interval in force) and hands a pending will message to the sink (after its
 * MQTT 5.0 will delay, through {@link DelayedWills}). Every step is O(1) and non-blocking, so a disconnect storm costs
 * each event
 * loop only enqueues. Called by {@code DeviceSocketHandler} (not a pipeline entry of its own). Stateless and
 * shared; event loop only.
 */
public final class ConnectionLifecycleHandler {
    private final SessionServices services;

    public ConnectionLifecycleHandler(SessionServices services) {
        this.services = services;
    }

    /** The connection is open (active). */
    public void opened() {
        services.metrics().channelOpened();
    }

    /** The connection is closed (inactive): the books close on it. */
    public void closed(ChannelHandlerContext ctx) {
        ConnectionContext c = ConnectionContext.of(ctx.channel());
        c.closeReason(DisconnectReason.CONNECTION_LOST);
        DisconnectReason reason = c.closeReason();
        services.metrics().channelClosed(reason);
        if (c.releaseReadingPause()) {
            services.metrics().readingPaused(false);
        }
        c.closeDownlink();
        if (c.sessionOpen()) {
            // downlink that waited for a session restore that never finished now sees the channel closed
            c.restored();
            if (c.persistent()) {
                SessionStoreCalls.call(services.metrics(), "disconnected",
                        () -> services.sessions().disconnected(c.sessionKey(), c.route().epoch(),
                                c.sessionExpiryMillis()));
            }
            services.registry().remove(c.clientId(), ctx.channel());
            Route route = c.route();
            services.routes().remove(route);
            UplinkMessage will = c.will();
            if (will != null && reason != DisconnectReason.CLIENT_DISCONNECT) {
                willOnClose(ctx, c, will, reason);
            }
            services.events().disconnected(c.clientId(), route.remoteAddress(), reason.label());
        }
    }

    /**
     * The will of a connection that ended without a normal DISCONNECT: published now, or (MQTT 5.0 will delay) when
     * the delay has passed unless the session resumes first. A takeover that resumes the session is that resumption
     * (the will waits for nothing); one with a clean start ended the session, so the will goes out now. A shutting
     * down node cannot wait: it publishes.
     */
    private void willOnClose(ChannelHandlerContext ctx, ConnectionContext c, UplinkMessage will,
                             DisconnectReason reason) {
        Mqtt5Session mqtt5 = c.mqtt5();
        int delay = mqtt5 == null ? 0 : mqtt5.willDelaySeconds();
        if (delay == 0 || reason == DisconnectReason.SHUTDOWN || reason == DisconnectReason.USE_ANOTHER_SERVER) {
            publishWill(will);
        } else if (reason == DisconnectReason.TAKEOVER) {
            if (!c.persistent()) {
                // the newer connection's clean start discarded this session
                publishWill(will);
            }
        } else {
            services.wills().schedule(c.sessionKey(), ctx.channel().eventLoop(), delay, () -> publishWill(will));
        }
    }

    /**
     * The will goes out as the device's last PUBLISH, stamped with the time the session ended: its expiry interval
     * runs from when it is published, not from CONNECT.
     */
    private void publishWill(UplinkMessage will) {
        services.metrics().publishReceived(will.qos());
        UplinkMessage published = new UplinkMessage(will.clientId(), will.topic(), will.qos(), will.retain(),
                will.payload(), System.currentTimeMillis(), will.properties(), will.expiryInterval());
        services.sink().send(published).whenComplete((ignored, error) -> {
            if (error != null) {
                services.metrics().uplinkNotDelivered(UplinkRejectedException.isRefusal(error));
            }
        });
    }
}
