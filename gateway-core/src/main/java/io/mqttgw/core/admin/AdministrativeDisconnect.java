package io.mqttgw.core.admin;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * An operator's kick: closes one session through {@link DeviceDisconnector} with
 * {@link DisconnectReason#ADMINISTRATIVE} (counted like every close), on the channel's event loop. With
 * {@code discardSession} the session is first marked not persistent (as a clean-session takeover does, so the close
 * neither keeps its pending downlink nor tells the store it merely disconnected) and, once closed, discarded in the
 * session store from that loop. Any thread may call; the result completes on the event loop once the channel is
 * closed.
 */
public final class AdministrativeDisconnect {
    /** What the kick did: whether a session was open to close, and whether a stored session was discarded. */
    public record Outcome(boolean closed, boolean sessionDiscarded) {
        static final Outcome NOT_OPEN = new Outcome(false, false);
    }

    private AdministrativeDisconnect() {
    }

    public static CompletableFuture<Outcome> kick(Channel channel, boolean discardSession, SessionStore sessions,
                                                  GatewayMetrics metrics) {
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        try {
            channel.eventLoop().execute(() -> {
                ConnectionContext c = ConnectionContext.of(channel);
                if (c == null || !c.sessionOpen() || !channel.isActive()) {
                    result.complete(Outcome.NOT_OPEN);
                    return;
                }
                boolean discard = discardSession && c.persistent();
                String sessionKey = c.sessionKey();
                long epoch = c.route().epoch();
                if (discard) {
                    c.discardSession();
                }
                DeviceDisconnector.close(channel, DisconnectReason.ADMINISTRATIVE);
                channel.closeFuture().addListener(f -> {
                    if (discard) {
                        SessionStoreCalls.call(metrics, "open", () -> sessions.open(sessionKey, true, epoch));
                    }
                    result.complete(new Outcome(true, discard));
                });
            });
        } catch (RejectedExecutionException e) {
            result.complete(Outcome.NOT_OPEN);
        }
        return result;
    }
}
