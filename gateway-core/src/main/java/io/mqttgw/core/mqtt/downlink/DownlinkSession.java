package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.connection.WritabilityWatch;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.topic.SubscriptionMatch;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;

/**
 * Downlink to one connection: takes each message, decides how it goes (now, behind the window, after its append to
 * the store, or not at all) and completes it with its outcome. The window of QoS 1/2 messages in flight
 * ({@code downlink.max-inflight}), its bounded queue ({@code downlink.max-queued}), acknowledgements and
 * retransmission are the {@link InflightWindow}'s. While the channel is unwritable (the device does not read) QoS 0 is
 * dropped (outcome NOT_WRITABLE) and QoS 1/2 waits in the queue; the {@link WritabilityWatch} calls {@link #writable}
 * when it drains.
 *
 * <p>To an MQTT 5.0 device: the window is also capped by the receive maximum it announced; a PUBLISH larger than its
 * maximum packet size is not sent (outcome TOO_LARGE, counted, removed from a persistent session since it can never
 * be delivered); each PUBLISH carries the message's properties, the expiry interval left, and the identifiers of the
 * subscriptions it matches.
 *
 * <p>In a persistent session (clean session 0) a QoS 1/2 message handed over with {@code persist} is appended to the
 * {@link SessionStore} first ({@link StoredAppends}) and removed once acknowledged (or given up). When the connection
 * ends, what the store holds completes QUEUED and the rest NOT_CONNECTED. Created lazily on the first downlink
 * message; event loop only.
 */
public final class DownlinkSession {
    private final Channel channel;
    private final GatewayConfig.Downlink config;
    private final GatewayMetrics metrics;
    private final SessionStore store;
    private final InflightWindow window;
    /** Made with the first message a persistent session stores before sending. */
    private StoredAppends appends;
    private boolean closed;
    /** The device takes MQTT 5.0 properties: its PUBLISHes are built per send ({@link DownlinkPublish#packet5}). */
    private final boolean properties;
    private final int maximumPacketSize;

    /** The connection's downlink state, made on its first downlink message. Event loop only. */
    public static DownlinkSession of(Channel channel, GatewayConfig.Downlink config, GatewayMetrics metrics,
                                     SessionStore store) {
        ConnectionContext context = ConnectionContext.of(channel);
        DownlinkSession session = context.downlinkOrNull();
        if (session == null) {
            session = new DownlinkSession(channel, config, metrics, store);
            context.downlink(session);
        }
        return session;
    }

    public DownlinkSession(Channel channel, GatewayConfig.Downlink config, GatewayMetrics metrics, SessionStore store) {
        this.channel = channel;
        this.config = config;
        this.metrics = metrics;
        this.store = store;
        ProtocolCapabilities capabilities = ConnectionContext.of(channel).capabilities();
        this.window = new InflightWindow(this, channel, config, metrics, capabilities.receiveMaximum());
        this.properties = capabilities.properties();
        this.maximumPacketSize = capabilities.maximumPacketSize();
    }

    /**
     * Sends {@code publish} at {@code qos}, taking over one reference to it; {@code result} (may be null) completes
     * with the outcome. With {@code persist}, in a persistent session, a QoS 1/2 message is stored first.
     */
    public void send(DownlinkPublish publish, int qos, CompletableFuture<Outcome> result, boolean persist) {
        PendingDownlink p = new PendingDownlink(publish, qos, result);
        if (closed) {
            finish(p, Outcome.NOT_CONNECTED);
        } else if (p.expired(System.currentTimeMillis())) {
            finish(p, Outcome.EXPIRED);
        } else if (persist && qos > 0 && ConnectionContext.of(channel).persistent()) {
            if (appends == null) {
                appends = new StoredAppends(this, channel, metrics, store);
            }
            if (appends.size() + window.queued() >= config.maxQueued() + config.maxInflight()) {
                finish(p, Outcome.QUEUE_FULL);
            } else {
                appends.add(p);
            }
        } else {
            dispatch(p);
        }
    }

    /** A message the store already holds (restored on reconnect): sent without storing it again. */
    public void sendStored(DownlinkPublish publish, int qos, String storedId) {
        PendingDownlink p = new PendingDownlink(publish, qos, null);
        p.stored(storedId);
        if (closed) {
            finish(p, Outcome.QUEUED);
        } else if (p.expired(System.currentTimeMillis())) {
            finish(p, Outcome.EXPIRED);
        } else {
            dispatch(p);
        }
    }

    /**
     * The message as the store keeps it: under the session's key, which differs from the client id without a
     * certificate.
     */
    static DownlinkMessage forSessionKey(DownlinkMessage m, String sessionKey) {
        if (sessionKey == null || sessionKey.equals(m.clientId())) {
            return m;
        }
        return m.withClientId(sessionKey);
    }

    /** The store answered the append of {@code p} (stored, or failed: it is delivered anyway). */
    void appended(PendingDownlink p) {
        if (closed) {
            finish(p, p.storedId() != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
        } else {
            dispatch(p);
        }
    }

    private void dispatch(PendingDownlink p) {
        if (properties && tooLarge(p)) {
            // the device would have to disconnect for it (MQTT-3.1.2-24): not sent, counted
            finish(p, Outcome.TOO_LARGE);
        } else if (p.qos() == 0 && !channel.isWritable()) {
            // the device is not reading: QoS 0 may be lost, so it is, rather than growing the outbound buffer
            finish(p, Outcome.NOT_WRITABLE);
        } else if (p.qos() == 0) {
            channel.writeAndFlush(packet(p, false), channel.voidPromise());
            metrics.publishSent(0);
            finish(p, Outcome.DELIVERED);
        } else {
            window.offer(p);
        }
    }

    /** The packet for this device: the shared 3.1.1 encoding, or a 5.0 PUBLISH with its properties as of now. */
    Object packet(PendingDownlink p, boolean dup) {
        DownlinkPublish publish = p.publish();
        if (!properties) {
            return publish.packet(channel.alloc(), p.qos(), p.packetId(), dup);
        }
        SubscriptionMatch match = SubscriptionMatcher.match(ConnectionContext.of(channel).subscriptions(),
                publish.message().topic());
        if (publish.sharedFor5(match)) {
            // nothing of its own for this receiver: the shared encoding with an empty property block
            return publish.packet(channel.alloc(), p.qos(), p.packetId(), dup, true);
        }
        return publish.packet5(p.qos(), p.packetId(), dup, match, System.currentTimeMillis());
    }

    private boolean tooLarge(PendingDownlink p) {
        if (maximumPacketSize >= ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE) {
            return false;
        }
        SubscriptionMatch match = SubscriptionMatcher.match(ConnectionContext.of(channel).subscriptions(),
                p.publish().message().topic());
        return p.publish().size5(p.qos(), match, System.currentTimeMillis()) > maximumPacketSize;
    }

    void pubAck(int packetId) {
        window.pubAck(packetId);
    }

    void pubRec(int packetId) {
        window.pubRec(packetId);
    }

    void pubComp(int packetId) {
        window.pubComp(packetId);
    }

    /** The channel drained below its low-water mark: what waited in the queue goes out, up to the window. */
    public void writable() {
        if (!closed) {
            window.startQueued();
        }
    }

    /** Whether the connection ended: nothing is sent or retransmitted any more. */
    boolean closed() {
        return closed;
    }

    /** Completes {@code p} with {@code outcome}; a stored message that can no longer be delivered leaves the store. */
    void finish(PendingDownlink p, Outcome outcome) {
        if (p.storedId() != null && (outcome == Outcome.DELIVERED || outcome == Outcome.EXPIRED
                || outcome == Outcome.TOO_LARGE)) {
            String sessionKey = ConnectionContext.of(channel).sessionKey();
            String id = p.storedId();
            SessionStoreCalls.call(metrics, "remove", () -> store.remove(sessionKey, id));
        }
        metrics.downlinkOutcome(outcome);
        p.complete(outcome);
    }

    /**
     * The connection ended: what the persistent session stored completes QUEUED (the store keeps it for the
     * reconnect), the rest NOT_CONNECTED; buffers are given back. Appends still running finish when they answer.
     */
    public void close() {
        closed = true;
        window.close(ConnectionContext.of(channel).persistent());
    }

    public int inflightCount() {
        return window.inflightCount();
    }

    public int queued() {
        return window.queued();
    }
}
