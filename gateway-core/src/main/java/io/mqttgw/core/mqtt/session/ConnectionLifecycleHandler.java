package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.mqtt.publish.UplinkAcks;
import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.UplinkMessage;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

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
    private final WillPublication publisher;

    public ConnectionLifecycleHandler(SessionServices services) {
        this.services = services;
        this.publisher = new WillPublication(services.metrics(), services.sink());
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
        UplinkAcks acks = c.acksOrNull();
        if (acks != null) {
            // held for room in the sink and never taken: not acknowledged, the device sends them again
            for (int held = acks.releaseHeld(); held > 0; held--) {
                services.metrics().uplinkNotDelivered(true);
            }
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
     * (the will waits for nothing); one with a clean start ended the session, so the will goes out now. With a store
     * the fleet shares, the will waits there, also when this node shuts down: its device may resume on another node.
     * Without one, a shutting down node cannot wait: it publishes.
     */
    private void willOnClose(ChannelHandlerContext ctx, ConnectionContext c, UplinkMessage will,
                             DisconnectReason reason) {
        Mqtt5Session mqtt5 = c.mqtt5();
        int delay = mqtt5 == null ? 0 : mqtt5.willDelaySeconds();
        Optional<DelayedWillStore> fleet = DelayedWillStore.of(services.sessions());
        if (delay == 0) {
            publisher.publish(will);
        } else if (reason == DisconnectReason.TAKEOVER) {
            if (!c.persistent()) {
                // the newer connection's clean start discarded this session
                publisher.publish(will);
            }
        } else if (fleet.isPresent()) {
            armInFleet(fleet.get(), ctx.channel().eventLoop(), c, delay, will);
        } else if (reason == DisconnectReason.SHUTDOWN || reason == DisconnectReason.USE_ANOTHER_SERVER) {
            publisher.publish(will);
        } else {
            services.wills().schedule(c.sessionKey(), ctx.channel().eventLoop(), delay, () -> publisher.publish(will));
        }
    }

    /**
     * Leaves the will to the fleet's store. When the store cannot take it (Redis failing), this node keeps it as it
     * would without a shared store: a device resuming on another node then does not cancel it, and a write that took
     * effect although its answer was lost lets the fleet publish it as well.
     */
    private void armInFleet(DelayedWillStore fleet, EventLoop loop, ConnectionContext c, int delay,
                            UplinkMessage will) {
        String sessionKey = c.sessionKey();
        SessionStoreCalls.call(services.metrics(), "will", () -> fleet.arm(sessionKey, c.route().epoch(),
                TimeUnit.SECONDS.toMillis(delay), will)).whenComplete((armed, error) -> {
                    if (error != null) {
                        services.wills().schedule(sessionKey, loop, delay, () -> publisher.publish(will));
                    } else if (armed == DelayedWillStore.Armed.ENDED) {
                        publisher.publish(will);
                    }
                });
    }
}
