package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.WritabilityWatch;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.topic.SubscriptionMatch;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Downlink to one connection: packet ids, the in-flight window ({@code downlink.max-inflight}), a bounded queue
 * behind it ({@code downlink.max-queued}), and retransmission with DUP every {@code downlink.retry-interval} up to
 * {@code downlink.max-retries} times, driven by the {@link RetryWheel} of this connection's loop. QoS 2 completes
 * PUBREC then PUBREL/PUBCOMP. While the channel is unwritable (the device does not read) nothing new is started:
 * QoS 1/2 waits in the bounded queue, QoS 0 is dropped (outcome NOT_WRITABLE), retransmissions are put off; the
 * {@link WritabilityWatch} calls {@link #writable} when it drains.
 *
 * <p>To an MQTT 5.0 device: the window is also capped by the receive maximum it announced; a PUBLISH larger than its
 * maximum packet size is not sent (outcome TOO_LARGE, counted, removed from a persistent session since it can never
 * be delivered); each PUBLISH carries the message's properties, the expiry interval left, and the identifiers of the
 * subscriptions it matches.
 *
 * <p>In a persistent session (clean session 0) a QoS 1/2 message handed over with {@code persist} is appended to the
 * {@link SessionStore} before it is sent and removed once acknowledged (or given up), so a device that goes away
 * mid-flight gets it again on reconnect, on any node. Appends run one at a time in arrival order, which keeps the
 * stored order. When the connection ends, what the store holds completes QUEUED and the rest NOT_CONNECTED.
 * Created lazily on the first downlink message; event loop only.
 */
public final class DownlinkSession {
    private static final MqttFixedHeader PUBREL = new MqttFixedHeader(MqttMessageType.PUBREL, false,
            MqttQoS.AT_LEAST_ONCE, false, 2);

    private static final class Pending {
        final DownlinkPublish publish;
        final int qos;
        final CompletableFuture<Outcome> result;
        final long startNanos = System.nanoTime();
        String storedId;
        int packetId;
        int retries;
        long sentAtNanos;
        boolean released;
        boolean done;

        Pending(DownlinkPublish publish, int qos, CompletableFuture<Outcome> result) {
            this.publish = publish;
            this.qos = qos;
            this.result = result;
        }

        boolean done() {
            return done;
        }
    }

    private final Channel channel;
    private final GatewayConfig.Downlink config;
    private final GatewayMetrics metrics;
    private final SessionStore store;
    private final Map<Integer, Pending> inflight = new HashMap<>(8);
    private final ArrayDeque<Pending> queue = new ArrayDeque<>(4);
    /** Messages waiting for their append to the store; the head's append is running. */
    private ArrayDeque<Pending> appending;
    private int lastPacketId;
    private boolean scheduled;
    private boolean closed;
    /** QoS 1/2 messages in flight at most: {@code downlink.max-inflight}, or the device's receive maximum if lower. */
    private final int window;
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
        this.window = Math.min(config.maxInflight(), capabilities.receiveMaximum());
        this.properties = capabilities.properties();
        this.maximumPacketSize = capabilities.maximumPacketSize();
    }

    /**
     * Sends {@code publish} at {@code qos}, taking over one reference to it; {@code result} (may be null) completes
     * with the outcome. With {@code persist}, in a persistent session, a QoS 1/2 message is stored first.
     */
    public void send(DownlinkPublish publish, int qos, CompletableFuture<Outcome> result, boolean persist) {
        Pending p = new Pending(publish, qos, result);
        if (closed) {
            finish(p, Outcome.NOT_CONNECTED);
        } else if (publish.message().expired(System.currentTimeMillis())) {
            finish(p, Outcome.EXPIRED);
        } else if (persist && qos > 0 && ConnectionContext.of(channel).persistent()) {
            if (appending == null) {
                appending = new ArrayDeque<>(2);
            }
            if (appending.size() + queue.size() >= config.maxQueued() + config.maxInflight()) {
                finish(p, Outcome.QUEUE_FULL);
                return;
            }
            appending.add(p);
            if (appending.size() == 1) {
                appendHead();
            }
        } else {
            dispatch(p);
        }
    }

    /** A message the store already holds (restored on reconnect): sent without storing it again. */
    public void sendStored(DownlinkPublish publish, int qos, String storedId) {
        Pending p = new Pending(publish, qos, null);
        p.storedId = storedId;
        if (closed) {
            finish(p, Outcome.QUEUED);
        } else if (publish.message().expired(System.currentTimeMillis())) {
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

    private void appendHead() {
        Pending p = appending.peek();
        DownlinkMessage toStore = forSessionKey(p.publish.message(), ConnectionContext.of(channel).sessionKey());
        SessionStoreCalls.call(metrics, "append", () -> store.append(toStore)).whenComplete((append, error) -> {
            Runnable next = () -> appended(p, append, error);
            try {
                channel.eventLoop().execute(next);
            } catch (RuntimeException loopGone) {
                finish(p, error == null && append.status() == SessionStore.Append.Status.STORED
                        ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
            }
        });
    }

    private void appended(Pending p, SessionStore.Append append, Throwable error) {
        appending.poll();
        if (error != null) {
            // the store failed (counted): deliver anyway, without the guarantee of a reconnect, rather than not at all
        } else if (append.status() == SessionStore.Append.Status.FULL) {
            finish(p, Outcome.QUEUE_FULL);
        } else if (append.status() == SessionStore.Append.Status.STORED) {
            p.storedId = append.id();
        }
        if (!p.done()) {
            if (closed) {
                finish(p, p.storedId != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
            } else {
                dispatch(p);
            }
        }
        if (!appending.isEmpty()) {
            appendHead();
        }
    }

    private void dispatch(Pending p) {
        if (properties && tooLarge(p)) {
            // the device would have to disconnect for it (MQTT-3.1.2-24): not sent, counted
            finish(p, Outcome.TOO_LARGE);
        } else if (p.qos == 0 && !channel.isWritable()) {
            // the device is not reading: QoS 0 may be lost, so it is, rather than growing the outbound buffer
            finish(p, Outcome.NOT_WRITABLE);
        } else if (p.qos == 0) {
            channel.writeAndFlush(packet(p, false), channel.voidPromise());
            metrics.publishSent(0);
            finish(p, Outcome.DELIVERED);
        } else if (inflight.size() < window && queue.isEmpty() && channel.isWritable()) {
            start(p);
        } else if (queue.size() < config.maxQueued() || p.storedId != null) {
            // a stored message is never refused here: the store bounds it already, and refusing would lose it
            queue.add(p);
        } else {
            finish(p, Outcome.QUEUE_FULL);
        }
    }

    private void start(Pending p) {
        do {
            lastPacketId = lastPacketId == 0xFFFF ? 1 : lastPacketId + 1;
        } while (inflight.containsKey(lastPacketId));
        p.packetId = lastPacketId;
        p.sentAtNanos = System.nanoTime();
        inflight.put(p.packetId, p);
        metrics.downlinkInflight(1);
        channel.writeAndFlush(packet(p, false), channel.voidPromise());
        metrics.publishSent(p.qos);
        arm();
    }

    /** The packet for this device: the shared 3.1.1 encoding, or a 5.0 PUBLISH with its properties as of now. */
    private Object packet(Pending p, boolean dup) {
        if (!properties) {
            return p.publish.packet(channel.alloc(), p.qos, p.packetId, dup);
        }
        SubscriptionMatch match = SubscriptionMatcher.match(ConnectionContext.of(channel).subscriptions(),
                p.publish.message().topic());
        if (p.publish.sharedFor5(match)) {
            // nothing of its own for this receiver: the shared encoding with an empty property block
            return p.publish.packet(channel.alloc(), p.qos, p.packetId, dup, true);
        }
        return p.publish.packet5(p.qos, p.packetId, dup, match, System.currentTimeMillis());
    }

    private boolean tooLarge(Pending p) {
        if (maximumPacketSize >= ProtocolCapabilities.PROTOCOL_MAXIMUM_PACKET_SIZE) {
            return false;
        }
        SubscriptionMatch match = SubscriptionMatcher.match(ConnectionContext.of(channel).subscriptions(),
                p.publish.message().topic());
        return p.publish.size5(p.qos, match, System.currentTimeMillis()) > maximumPacketSize;
    }

    void pubAck(int packetId) {
        Pending p = inflight.get(packetId);
        if (p != null && p.qos == 1) {
            complete(p, Outcome.DELIVERED);
        }
    }

    void pubRec(int packetId) {
        Pending p = inflight.get(packetId);
        if (p != null && p.qos == 2) {
            p.released = true;
            p.sentAtNanos = System.nanoTime();
            channel.writeAndFlush(new MqttMessage(PUBREL, MqttMessageIdVariableHeader.from(packetId)),
                    channel.voidPromise());
        }
    }

    void pubComp(int packetId) {
        Pending p = inflight.get(packetId);
        if (p != null && p.qos == 2 && p.released) {
            complete(p, Outcome.DELIVERED);
        }
    }

    private void complete(Pending p, Outcome outcome) {
        inflight.remove(p.packetId);
        metrics.downlinkInflight(-1);
        if (outcome == Outcome.DELIVERED) {
            metrics.downlinkLatency(System.nanoTime() - p.startNanos);
        }
        finish(p, outcome);
        startQueued();
    }

    /** The channel drained below its low-water mark: what waited in the queue goes out, up to the window. */
    public void writable() {
        if (!closed) {
            startQueued();
        }
    }

    /** Starts queued messages while the window has room and the channel takes bytes (else they wait here). */
    private void startQueued() {
        while (!queue.isEmpty() && inflight.size() < window && channel.isWritable()) {
            Pending next = queue.poll();
            if (next.publish.message().expired(System.currentTimeMillis())) {
                finish(next, Outcome.EXPIRED);
            } else {
                start(next);
            }
        }
    }

    private void finish(Pending p, Outcome outcome) {
        p.done = true;
        if (p.storedId != null && (outcome == Outcome.DELIVERED || outcome == Outcome.EXPIRED
                || outcome == Outcome.TOO_LARGE)) {
            String sessionKey = ConnectionContext.of(channel).sessionKey();
            String id = p.storedId;
            SessionStoreCalls.call(metrics, "remove", () -> store.remove(sessionKey, id));
        }
        p.publish.release();
        metrics.downlinkOutcome(outcome);
        if (p.result != null) {
            p.result.complete(outcome);
        }
    }

    /** Puts the session in its loop's retry wheel for the earliest retransmission due, if not there already. */
    private void arm() {
        if (scheduled || inflight.isEmpty() || closed) {
            return;
        }
        long interval = config.retryInterval().toNanos();
        long earliest = Long.MAX_VALUE;
        for (Pending p : inflight.values()) {
            earliest = Math.min(earliest, p.sentAtNanos + interval);
        }
        scheduled = true;
        RetryWheel.of(channel.eventLoop()).schedule(this,
                Math.max(0, TimeUnit.NANOSECONDS.toMillis(earliest - System.nanoTime())));
    }

    /** Called by the retry wheel: sends again what waited past the interval, gives up what ran out of retries. */
    public void retryDue() {
        scheduled = false;
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        long interval = config.retryInterval().toNanos();
        long nowMillis = System.currentTimeMillis();
        java.util.List<Pending> givenUp = new java.util.ArrayList<>(0);
        for (Iterator<Pending> it = inflight.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (now - p.sentAtNanos < interval) {
                continue;
            }
            if (p.retries >= config.maxRetries() || p.publish.message().expired(nowMillis)) {
                givenUp.add(p);
                continue;
            }
            if (!channel.isWritable()) {
                // the device is not reading: resending would only grow the outbound buffer; try again later
                p.sentAtNanos = now;
                continue;
            }
            p.retries++;
            p.sentAtNanos = now;
            metrics.downlinkRetried();
            if (p.released) {
                channel.write(new MqttMessage(PUBREL, MqttMessageIdVariableHeader.from(p.packetId)),
                        channel.voidPromise());
            } else {
                channel.write(packet(p, true), channel.voidPromise());
            }
        }
        channel.flush();
        givenUp.forEach(p -> complete(p, Outcome.EXPIRED));
        arm();
    }

    /**
     * The connection ended: what the persistent session stored completes QUEUED (the store keeps it for the
     * reconnect), the rest NOT_CONNECTED; buffers are given back. Appends still running finish when they answer.
     */
    public void close() {
        closed = true;
        boolean keep = ConnectionContext.of(channel).persistent();
        for (Pending p : inflight.values()) {
            metrics.downlinkInflight(-1);
            finish(p, keep && p.storedId != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
        }
        inflight.clear();
        for (Pending p = queue.poll(); p != null; p = queue.poll()) {
            finish(p, keep && p.storedId != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
        }
    }

    public int inflightCount() {
        return inflight.size();
    }

    public int queued() {
        return queue.size();
    }

    /** Whether this connection's PUBLISHes carry an MQTT 5.0 property block. */
    private boolean properties() {
        return ConnectionContext.of(channel).capabilities().properties();
    }
}
