package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.mqtt.downlink.DownlinkPublish;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.mqtt.downlink.SubscriptionMatcher;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.SessionStore.StoredMessage;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.core.spi.Subscriptions;
import io.netty.channel.Channel;

/**
 * The session restore step of CONNECT: puts a persistent session back, its subscriptions first, then the accepting
 * CONNACK, then its pending messages in stored order, then the downlink work that waited for the restore. Stateless
 * apart from the services; event loop only.
 */
final class SessionRestore {
    /** Writes the accepting CONNACK; the restore calls it between the subscriptions and the pending messages. */
    @FunctionalInterface
    interface Acceptance {
        void accept(boolean sessionPresent);
    }

    private final SessionServices services;

    SessionRestore(SessionServices services) {
        this.services = services;
    }

    /** A session that is not stored: counted, then accepted without a session present. */
    void clean(Acceptance acceptance) {
        services.metrics().sessionOpened("clean");
        acceptance.accept(false);
    }

    /** {@code session} null: the store did not answer (in time); the device is served as a new session. */
    void restore(Channel channel, StoredSession session, Acceptance acceptance) {
        ConnectionContext context = ConnectionContext.of(channel);
        StoredSession found = session;
        if (found == null) {
            services.metrics().sessionOpened("unavailable");
            found = StoredSession.NONE;
        } else {
            services.metrics().sessionOpened(found.present() ? "resumed" : "new");
        }
        context.subscriptions(Subscriptions.copyOf(found.subscriptions()));
        acceptance.accept(found.present());
        DownlinkSession downlink = null;
        for (StoredMessage m : found.pending()) {
            int granted = SubscriptionMatcher.grantedQos(context.subscriptions(), m.message().topic());
            if (granted < 0) {
                services.metrics().downlinkOutcome(DownlinkTarget.Outcome.NOT_SUBSCRIBED);
                SessionStoreCalls.call(services.metrics(), "remove",
                        () -> services.sessions().remove(context.sessionKey(), m.id()));
                continue;
            }
            if (downlink == null) {
                downlink = DownlinkSession.of(channel, services.config().downlink(), services.metrics(),
                        services.sessions());
            }
            downlink.sendStored(DownlinkPublish.encode(m.message(), channel.alloc()),
                    Math.min(granted, m.message().qos()), m.id());
        }
        context.restored();
    }
}
