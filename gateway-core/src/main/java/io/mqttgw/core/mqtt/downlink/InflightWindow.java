package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The QoS 1/2 side of one connection's downlink: packet ids, the messages in flight (sent, not yet acknowledged) up
 * to the window, the bounded queue behind them, the device's PUBACK / PUBREC / PUBCOMP, and retransmission with DUP
 * every {@code downlink.retry-interval} up to {@code downlink.max-retries} times, driven by the {@link RetryWheel} of
 * the connection's loop. While the channel is unwritable nothing new starts and retransmissions are put off.
 * Outcomes go back to the owning {@link DownlinkSession}. Event loop only.
 */
final class InflightWindow {
    private static final MqttFixedHeader PUBREL = new MqttFixedHeader(MqttMessageType.PUBREL, false,
            MqttQoS.AT_LEAST_ONCE, false, 2);

    private final DownlinkSession session;
    private final Channel channel;
    private final GatewayConfig.Downlink config;
    private final GatewayMetrics metrics;
    private final Map<Integer, PendingDownlink> inflight = new HashMap<>(8);
    private final ArrayDeque<PendingDownlink> queue = new ArrayDeque<>(4);
    /** QoS 1/2 messages in flight at most: {@code downlink.max-inflight}, or the device's receive maximum if lower. */
    private final int capacity;
    private int lastPacketId;
    /** In the retry wheel already (entries are never cancelled, so at most one is there per window). */
    private boolean scheduled;

    InflightWindow(DownlinkSession session, Channel channel, GatewayConfig.Downlink config, GatewayMetrics metrics,
                   int receiveMaximum) {
        this.session = session;
        this.channel = channel;
        this.config = config;
        this.metrics = metrics;
        this.capacity = Math.min(config.maxInflight(), receiveMaximum);
    }

    /** Sends {@code p} now if the window has room, nothing waits before it and the device reads; else queues it. */
    void offer(PendingDownlink p) {
        if (inflight.size() < capacity && queue.isEmpty() && channel.isWritable()) {
            start(p);
        } else if (queue.size() < config.maxQueued() || p.storedId() != null) {
            // a stored message is never refused here: the store bounds it already, and refusing would lose it
            queue.add(p);
        } else {
            session.finish(p, Outcome.QUEUE_FULL);
        }
    }

    private void start(PendingDownlink p) {
        do {
            lastPacketId = lastPacketId == 0xFFFF ? 1 : lastPacketId + 1;
        } while (inflight.containsKey(lastPacketId));
        p.sent(lastPacketId, System.nanoTime());
        inflight.put(p.packetId(), p);
        metrics.downlinkInflight(1);
        channel.writeAndFlush(session.packet(p, false), channel.voidPromise());
        metrics.publishSent(p.qos());
        arm();
    }

    void pubAck(int packetId) {
        PendingDownlink p = inflight.get(packetId);
        if (p != null && p.qos() == 1) {
            complete(p, Outcome.DELIVERED);
        }
    }

    void pubRec(int packetId) {
        PendingDownlink p = inflight.get(packetId);
        if (p != null && p.qos() == 2) {
            p.pubRelSent(System.nanoTime());
            channel.writeAndFlush(pubRel(packetId), channel.voidPromise());
        }
    }

    void pubComp(int packetId) {
        PendingDownlink p = inflight.get(packetId);
        if (p != null && p.qos() == 2 && p.pubRelSent()) {
            complete(p, Outcome.DELIVERED);
        }
    }

    private static MqttMessage pubRel(int packetId) {
        return new MqttMessage(PUBREL, MqttMessageIdVariableHeader.from(packetId));
    }

    private void complete(PendingDownlink p, Outcome outcome) {
        inflight.remove(p.packetId());
        metrics.downlinkInflight(-1);
        if (outcome == Outcome.DELIVERED) {
            metrics.downlinkLatency(System.nanoTime() - p.startNanos());
        }
        session.finish(p, outcome);
        startQueued();
    }

    /** Starts queued messages while the window has room and the channel takes bytes (else they wait here). */
    void startQueued() {
        while (!queue.isEmpty() && inflight.size() < capacity && channel.isWritable()) {
            PendingDownlink next = queue.poll();
            if (next.expired(System.currentTimeMillis())) {
                session.finish(next, Outcome.EXPIRED);
            } else {
                start(next);
            }
        }
    }

    /** Puts the window in its loop's retry wheel for the earliest retransmission due, if not there already. */
    private void arm() {
        if (scheduled || inflight.isEmpty() || session.closed()) {
            return;
        }
        long interval = config.retryInterval().toNanos();
        long earliest = Long.MAX_VALUE;
        for (PendingDownlink p : inflight.values()) {
            earliest = Math.min(earliest, p.sentAtNanos() + interval);
        }
        scheduled = true;
        RetryWheel.of(channel.eventLoop()).schedule(this,
                Math.max(0, TimeUnit.NANOSECONDS.toMillis(earliest - System.nanoTime())));
    }

    /** Called by the retry wheel: sends again what waited past the interval, gives up what ran out of retries. */
    void retryDue() {
        scheduled = false;
        if (session.closed()) {
            return;
        }
        long now = System.nanoTime();
        long interval = config.retryInterval().toNanos();
        long nowMillis = System.currentTimeMillis();
        List<PendingDownlink> givenUp = new ArrayList<>(0);
        for (PendingDownlink p : inflight.values()) {
            if (now - p.sentAtNanos() < interval) {
                continue;
            }
            if (p.retries() >= config.maxRetries() || p.expired(nowMillis)) {
                givenUp.add(p);
                continue;
            }
            if (!channel.isWritable()) {
                // the device is not reading: resending would only grow the outbound buffer; try again later
                p.postponed(now);
                continue;
            }
            p.retried(now);
            metrics.downlinkRetried();
            if (p.pubRelSent()) {
                channel.write(pubRel(p.packetId()), channel.voidPromise());
            } else {
                channel.write(session.packet(p, true), channel.voidPromise());
            }
        }
        channel.flush();
        givenUp.forEach(p -> complete(p, Outcome.EXPIRED));
        arm();
    }

    /** The connection ended: every message here completes QUEUED if the store keeps it for the reconnect. */
    void close(boolean keepStored) {
        for (PendingDownlink p : inflight.values()) {
            metrics.downlinkInflight(-1);
            session.finish(p, keepStored && p.storedId() != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
        }
        inflight.clear();
        for (PendingDownlink p = queue.poll(); p != null; p = queue.poll()) {
            session.finish(p, keepStored && p.storedId() != null ? Outcome.QUEUED : Outcome.NOT_CONNECTED);
        }
    }

    int inflightCount() {
        return inflight.size();
    }

    int queued() {
        return queue.size();
    }
}
