package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.TrafficProfile;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
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
            publish(d, ch, "/heartbeat", profile.heartbeatBytes(), profile.heartbeatQos(), now);
            d.nextHeartbeat = next(d.nextHeartbeat, profile.heartbeatNanos(), now);
        }
        if (profile.enabled() && now - d.nextStatus >= 0) {
            publish(d, ch, "/status", profile.statusBytes(), profile.statusQos(), now);
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

    /** Writes (without flushing) one PUBLISH of {@code bytes} to {@code devices/<id><suffix>}. */
    void publish(Device d, Channel ch, String suffix, int bytes, int qos, long now) {
        int id = 0;
        if (qos > 0) {
            id = d.nextPacketId();
            stats.publishedQos1.increment();
            d.unacked++;
            if (d.pendingPacketId == 0) {
                d.pendingPacketId = id;
                d.pendingSentNanos = now;
            }
        }
        MqttPublishMessage msg = new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.valueOf(qos), false, 0),
                new MqttPublishVariableHeader("devices/" + d.clientId + suffix, id),
                payload.retainedSlice(0, bytes));
        ch.write(msg, ch.voidPromise());
        stats.published.increment();
    }
}
