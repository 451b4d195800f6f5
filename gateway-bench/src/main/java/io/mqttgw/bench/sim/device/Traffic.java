package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.TrafficProfile;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What a connected device sends and when: the field profile's heartbeat, status and PINGREQ on one timer per
 * device with random phases, and single PUBLISHes for the rate-driven publish scenario. Payloads are slices of one
 * shared read-only buffer (no copy per message). Every method runs on the device's event loop.
 */
final class Traffic {
    /** PINGREQ is the same immutable message for every device. */
    private static final MqttMessage PINGREQ = new MqttMessage(
            new MqttFixedHeader(MqttMessageType.PINGREQ, false, MqttQoS.AT_MOST_ONCE, false, 0));

    /** Topic suffixes by the kind an {@link Outbox} entry keeps. */
    static final int HEARTBEAT = 0;
    static final int STATUS = 1;
    static final int TELEMETRY = 2;
    private static final String[] SUFFIXES = {"/heartbeat", "/status", "/telemetry"};

    private final TrafficProfile profile;
    private final FleetStats stats;
    private final ByteBuf payload;

    Traffic(TrafficProfile profile, FleetStats stats, ByteBuf payload) {
        this.profile = profile;
        this.stats = stats;
        this.payload = payload;
    }

    /** Sets random phases and arms the device's timer; called once per session, after CONNACK. */
    void start(Device d) {
        long now = System.nanoTime();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        d.nextPing = now + (long) (r.nextDouble() * profile.pingNanos());
        if (profile.enabled()) {
            d.nextHeartbeat = now + (long) (r.nextDouble() * profile.heartbeatNanos());
            d.nextStatus = now + (long) (r.nextDouble() * profile.statusNanos());
        } else {
            d.nextHeartbeat = Long.MAX_VALUE;
            d.nextStatus = Long.MAX_VALUE;
        }
        arm(d, now);
    }

    /** The device's timer fired: send what is due, flush once, re-arm. */
    void onTimer(Device d) {
        Channel ch = d.channel;
        long now = System.nanoTime();
        if (profile.enabled() && now - d.nextHeartbeat >= 0) {
            publish(d, ch, HEARTBEAT, profile.heartbeatBytes(), profile.heartbeatQos(), now);
            d.nextHeartbeat = next(d.nextHeartbeat, profile.heartbeatNanos(), now);
        }
        if (profile.enabled() && now - d.nextStatus >= 0) {
            publish(d, ch, STATUS, profile.statusBytes(), profile.statusQos(), now);
            d.nextStatus = next(d.nextStatus, profile.statusNanos(), now);
        }
        if (now - d.nextPing >= 0) {
            ch.write(PINGREQ, ch.voidPromise());
            stats.pings.increment();
            if (d.pingSentNanos == 0) {
                d.pingSentNanos = now;
            }
            d.nextPing = next(d.nextPing, profile.pingNanos(), now);
        }
        ch.flush();
        arm(d, now);
    }

    private static long next(long due, long interval, long now) {
        long n = due + interval;
        return n - now <= 0 ? now + interval : n;
    }

    private void arm(Device d, long now) {
        long next = Math.min(d.nextPing, Math.min(d.nextHeartbeat, d.nextStatus));
        d.timer = d.loop.schedule(d, Math.max(0, next - now), TimeUnit.NANOSECONDS);
    }

    /**
     * Writes (without flushing) one PUBLISH of {@code bytes} to {@code devices/<id>} and the suffix of {@code kind};
     * a QoS 1 one is kept in the device's outbox until its PUBACK, and not sent at all when the outbox is full.
     */
    void publish(Device d, Channel ch, int kind, int bytes, int qos, long now) {
        int id = 0;
        int sequence = 0;
        if (qos > 0) {
            id = d.nextPacketId();
            sequence = profile.numbered() ? d.lastSequence + 1 : 0;
            if (!d.outbox.add(id, kind, bytes, now, sequence)) {
                stats.qos1WindowFull.increment();
                return;
            }
            if (sequence > 0) {
                d.lastSequence = sequence;
            }
            stats.qos1Outstanding.increment();
            stats.publishedQos1.increment();
            d.unacked++;
            if (d.pendingPacketId == 0) {
                d.pendingPacketId = id;
                d.pendingSentNanos = now;
            }
        }
        ch.write(publishMessage(d, kind, bytes, qos, id, false, sequence), ch.voidPromise());
        stats.published.increment();
    }

    /**
     * Writes (without flushing) every PUBLISH of the device's outbox again, in the order first sent, with DUP set
     * and its packet id, as a device with a persistent session does after it reconnects and before new traffic.
     */
    void resend(Device d, Channel ch) {
        Outbox o = d.outbox;
        for (int i = 0; i < o.size(); i++) {
            o.markResent(i);
            ch.write(publishMessage(d, o.kind(i), o.bytes(i), 1, o.packetId(i), true, o.sequence(i)),
                    ch.voidPromise());
            d.unacked++;
            stats.qos1Resent.increment();
            stats.published.increment();
        }
    }

    private MqttPublishMessage publishMessage(Device d, int kind, int bytes, int qos, int id, boolean dup,
                                              int sequence) {
        return new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, dup, MqttQoS.valueOf(qos), false, 0),
                new MqttPublishVariableHeader("devices/" + d.clientId + SUFFIXES[kind], id),
                sequence > 0 ? numbered(sequence, bytes) : payload.retainedSlice(0, bytes));
    }

    /** The message number in ASCII, then the shared filler up to {@code bytes} (the number may make it longer). */
    private ByteBuf numbered(int sequence, int bytes) {
        byte[] digits = String.format(Locale.ROOT, "%0" + TrafficProfile.SEQUENCE_DIGITS + "d", sequence)
                .getBytes(StandardCharsets.US_ASCII);
        int rest = Math.max(0, bytes - digits.length);
        return rest == 0 ? Unpooled.wrappedBuffer(digits)
                : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(digits), payload.retainedSlice(0, rest));
    }
}
