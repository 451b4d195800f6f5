package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.tls.TlsFailureReason;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The gateway's own meters, created once so the hot path only increments (no lookup by tag per event). The
 * connection and publish meters live here; the others by area ({@link HandshakeMeters}, {@link DownlinkMeters},
 * {@link SessionMeters}, {@link PolicyRefusalMeters}), this class being the one surface the components count through.
 * Thread-safe; called from every event loop.
 */
public final class GatewayMetrics {
    private final MeterRegistry registry;
    private final LongAdder channelsOpen = new LongAdder();
    private final LongAdder readingPaused = new LongAdder();
    private final LongAdder unwritable = new LongAdder();
    private final Map<DisconnectReason, Counter> disconnects = new EnumMap<>(DisconnectReason.class);
    private final Counter[] publishIn = new Counter[3];
    private final Counter[] publishOut = new Counter[3];
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter uplinkRefused;
    private final Counter uplinkFailed;
    private final Counter uplinkHeld;
    private final Counter takeovers;
    private final HandshakeMeters handshakes;
    private final DownlinkMeters downlink;
    private final SessionMeters sessions;
    private final PolicyRefusalMeters refusals;

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("mqttgw.channels.open", channelsOpen, LongAdder::sum)
                .description("TCP connections open, with or without an MQTT session").register(registry);
        Gauge.builder("mqttgw.uplink.paused.channels", readingPaused, LongAdder::sum)
                .description("Connections whose reading is paused because their uplink window is full")
                .register(registry);
        Gauge.builder("mqttgw.outbound.unwritable.channels", unwritable, LongAdder::sum)
                .description("Connections not read because their outbound buffer is above the high-water mark "
                        + "(the device does not read)").register(registry);
        for (DisconnectReason r : DisconnectReason.values()) {
            disconnects.put(r, Counter.builder("mqttgw.disconnects").tag("reason", r.label())
                    .description("Connections closed, by reason").register(registry));
        }
        this.handshakes = new HandshakeMeters(registry);
        for (int q = 0; q < 3; q++) {
            publishIn[q] = Counter.builder("mqttgw.publish.in").tag("qos", Integer.toString(q))
                    .description("PUBLISH packets received from devices").register(registry);
            publishOut[q] = Counter.builder("mqttgw.publish.out").tag("qos", Integer.toString(q))
                    .description("PUBLISH packets sent to devices").register(registry);
        }
        bytesIn = Counter.builder("mqttgw.received").baseUnit("bytes").description("Bytes read from device sockets")
                .register(registry);
        bytesOut = Counter.builder("mqttgw.sent").baseUnit("bytes")
                .description("Bytes written to device sockets").register(registry);
        uplinkHeld = Counter.builder("mqttgw.uplink.held")
                .description("QoS 1/2 PUBLISHes the sink refused for capacity, held by their connection (reading "
                        + "paused) until the sink had room; one refused again after it was told of room counts again")
                .register(registry);
        uplinkRefused = Counter.builder("mqttgw.uplink.refused")
                .description("PUBLISHes the sink refused at once (full or closed): QoS 0 dropped, QoS 1/2 "
                        + "unacknowledged")
                .register(registry);
        uplinkFailed = Counter.builder("mqttgw.uplink.failed")
                .description("PUBLISHes the sink accepted but failed to deliver").register(registry);
        this.refusals = new PolicyRefusalMeters(registry, PROOF_CONFLICT, TOPIC_PLACES, PUBLISH_REFUSALS);
        this.downlink = new DownlinkMeters(registry);
        this.sessions = new SessionMeters(registry, SESSION_STORE_OPERATIONS);
        takeovers = Counter.builder("mqttgw.takeovers")
                .description("Older connections closed because the same client id connected again").register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Registers a gauge read at scrape time; used by components for queue depths and pool sizes. */
    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }

    public void channelOpened() {
        channelsOpen.increment();
    }

    public void channelClosed(DisconnectReason reason) {
        channelsOpen.decrement();
        disconnects.get(reason).increment();
    }

    public long channelsOpen() {
        return channelsOpen.sum();
    }

    public void tlsHandshakeSucceeded(boolean resumed) {
        handshakes.handshakes(resumed).increment();
    }

    public double tlsHandshakes(boolean resumed) {
        return handshakes.handshakes(resumed).count();
    }

    public void tlsHandshakeFailed(TlsFailureReason reason) {
        handshakes.failures(reason).increment();
    }

    public void connectAnswered(MqttConnectReturnCode code) {
        Counter c = handshakes.connects(code);
        if (c != null) {
            c.increment();
        }
    }

    public void publishReceived(int qos) {
        publishIn[qos].increment();
    }

    public void publishSent(int qos) {
        publishOut[qos].increment();
    }

    public void bytesRead(int n) {
        bytesIn.increment(n);
    }

    public void bytesWritten(int n) {
        bytesOut.increment(n);
    }

    /** A sink outcome other than success: refused at once ({@code UplinkRejectedException}) or failed later. */
    public void uplinkNotDelivered(boolean refused) {
        (refused ? uplinkRefused : uplinkFailed).increment();
    }

    /** A QoS 1/2 PUBLISH refused for capacity is held by its connection until the sink has room. */
    public void uplinkHeld() {
        uplinkHeld.increment();
    }

    public double uplinkHeldCount() {
        return uplinkHeld.count();
    }

    /** A connection's reading was paused (true) or resumed (false) by uplink back-pressure. */
    public void readingPaused(boolean paused) {
        if (paused) {
            readingPaused.increment();
        } else {
            readingPaused.decrement();
        }
    }

    /** A connection turned unwritable (true) or writable again or closed while unwritable (false). */
    public void unwritable(boolean now) {
        if (now) {
            unwritable.increment();
        } else {
            unwritable.decrement();
        }
    }

    public long unwritableChannels() {
        return unwritable.sum();
    }

    public long pausedChannels() {
        return readingPaused.sum();
    }

    /** Reasons counted by {@link #publishRefused}: the MQTT 5.0 reason codes a PUBACK or PUBREC may carry here. */
    public static final List<String> PUBLISH_REFUSALS = List.of("payload_format_invalid",
            "not_authorized", "unspecified_error", "quota_exceeded");

    /**
     * An MQTT 5.0 PUBLISH refused with a reason code on its acknowledgement; @param reason one of {@link
     * #PUBLISH_REFUSALS}
     */
    public void publishRefused(String reason) {
        refusals.publishesRefused(reason).increment();
    }

    public double publishesRefused(String reason) {
        return refusals.publishesRefused(reason).count();
    }

    public void aclDenied(boolean publish) {
        refusals.aclDenied(publish).increment();
    }

    public double aclDenials(boolean publish) {
        return refusals.aclDenied(publish).count();
    }

    public void downlinkOutcome(DownlinkTarget.Outcome outcome) {
        downlink.outcomes(outcome).increment();
    }

    public double downlinkOutcomes(DownlinkTarget.Outcome outcome) {
        return downlink.outcomes(outcome).count();
    }

    /** @param result forwarded (to the node holding the device) or fallback (kept here) */
    public void downlinkMoved(String result) {
        downlink.moved(result).increment();
    }

    public double downlinkMovedCount(String result) {
        return downlink.moved(result).count();
    }

    public void downlinkRetried() {
        downlink.retried().increment();
    }

    public double downlinkRetransmissions() {
        return downlink.retried().count();
    }

    public void downlinkInflight(int delta) {
        downlink.inflight().add(delta);
    }

    public void downlinkLatency(long nanos) {
        downlink.latency().record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Operations counted by {@link #sessionStoreError}. */
    public static final List<String> SESSION_STORE_OPERATIONS = List.of("open", "disconnected",
            "subscriptions", "append", "remove", "retain", "retained", "will");

    /** @param kind resumed, new, clean or unavailable */
    public void sessionOpened(String kind) {
        sessions.opened(kind).increment();
    }

    public double sessionsOpened(String kind) {
        return sessions.opened(kind).count();
    }

    /** @param operation one of {@link #SESSION_STORE_OPERATIONS} */
    public void sessionStoreError(String operation) {
        sessions.storeErrors(operation).increment();
    }

    public double sessionStoreErrors(String operation) {
        return sessions.storeErrors(operation).count();
    }

    /** @param result stored, deleted or refused */
    public void retained(String result) {
        downlink.retained(result).increment();
    }

    public double retainedCount(String result) {
        return downlink.retained(result).count();
    }

    /** Label of an identity refused because another proof kind holds it. */
    public static final String PROOF_CONFLICT = "proof_conflict";
    /**
     * Where a topic can be refused: {@code publish}, {@code will}, {@code subscribe}, {@code unsubscribe}, {@code
     * downlink}.
     */
    public static final List<String> TOPIC_PLACES = List.of("publish", "will", "subscribe",
            "unsubscribe", "downlink");

    /** @param reason an {@code IdentityRules.Violation} label or {@link #PROOF_CONFLICT} */
    public void identityRejected(String reason) {
        refusals.identitiesRejected(reason).increment();
    }

    public double identitiesRejected(String reason) {
        return refusals.identitiesRejected(reason).count();
    }

    /** @param where one of {@link #TOPIC_PLACES} */
    public void topicRefused(String where, TopicLimits.Exceeded limit) {
        refusals.topicsRefused(where, limit).increment();
    }

    public double topicsRefused(String where, TopicLimits.Exceeded limit) {
        return refusals.topicsRefused(where, limit).count();
    }

    public void takeover() {
        takeovers.increment();
    }

    /** Value of a counter for tests and the health check. */
    public double disconnects(DisconnectReason reason) {
        return disconnects.get(reason).count();
    }

    public double tlsFailures(TlsFailureReason reason) {
        return handshakes.failures(reason).count();
    }

    public double connects(MqttConnectReturnCode code) {
        Counter c = handshakes.connects(code);
        return c == null ? 0 : c.count();
    }

    public double publishesReceived(int qos) {
        return publishIn[qos].count();
    }
}
