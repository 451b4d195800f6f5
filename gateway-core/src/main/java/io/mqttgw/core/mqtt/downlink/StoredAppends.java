package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * A persistent session's QoS 1/2 messages on their way into the {@link SessionStore} before they are sent, so a device
 * that goes away mid-flight gets them again on reconnect, on any node. Appends run one at a time in arrival order,
 * which keeps the stored order; each answer comes back to the connection's loop and the message goes on to its
 * {@link DownlinkSession}. Made with the first such message of a connection; event loop only.
 */
final class StoredAppends {
    private final DownlinkSession session;
    private final Channel channel;
    private final GatewayMetrics metrics;
    private final SessionStore store;
    /** Messages waiting for their append; the head's append is running. */
    private final ArrayDeque<PendingDownlink> waiting = new ArrayDeque<>(2);

    StoredAppends(DownlinkSession session, Channel channel, GatewayMetrics metrics, SessionStore store) {
        this.session = session;
        this.channel = channel;
        this.metrics = metrics;
        this.store = store;
    }

    int size() {
        return waiting.size();
    }

    void add(PendingDownlink p) {
        waiting.add(p);
        if (waiting.size() == 1) {
            appendHead();
        }
    }

    private void appendHead() {
        PendingDownlink p = waiting.peek();
        DownlinkMessage toStore = DownlinkSession.forSessionKey(p.publish().message(),
                ConnectionContext.of(channel).sessionKey());
        SessionStoreCalls.call(metrics, "append", () -> store.append(toStore)).whenComplete((append, error) -> {
            Runnable next = () -> appended(p, append, error);
            try {
                channel.eventLoop().execute(next);
            } catch (RuntimeException loopGone) {
                session.finish(p, error == null && append.status() == SessionStore.Append.Status.STORED
                        ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
            }
        });
    }

    private void appended(PendingDownlink p, SessionStore.Append append, Throwable error) {
        waiting.poll();
        if (error != null) {
            // the store failed (counted): deliver anyway, without the guarantee of a reconnect, rather than not at all
        } else if (append.status() == SessionStore.Append.Status.FULL) {
            session.finish(p, Outcome.QUEUE_FULL);
        } else if (append.status() == SessionStore.Append.Status.STORED) {
            p.stored(append.id());
        }
        if (!p.done()) {
            session.appended(p);
        }
        if (!waiting.isEmpty()) {
            appendHead();
        }
    }
}
