package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The gateway's own meters, created once so the hot path only increments (no lookup by tag per event).
 * Thread-safe; called from every event loop.
 */
public final class GatewayMetrics {
    private final MeterRegistry registry;
    private final LongAdder channelsOpen = new LongAdder();
    private final LongAdder readingPaused = new LongAdder();
    private final LongAdder unwritable = new LongAdder();
    private final Map<DisconnectReason, Counter> disconnects = new EnumMap<>(DisconnectReason.class);
    private final Map<TlsFailureReason, Counter> tlsFailures = new EnumMap<>(TlsFailureReason.class);
    private final Map<MqttConnectReturnCode, Counter> connects = new EnumMap<>(MqttConnectReturnCode.class);
    private final Counter tlsHandshakesFull;
    private final Counter tlsHandshakesResumed;
    private final Counter[] publishIn = new Counter[3];
    private final Counter[] publishOut = new Counter[3];
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter uplinkRefused;
    private final Counter uplinkFailed;
    private final Counter takeovers;
    private final Map<io.mqttgw.core.spi.DownlinkTarget.Outcome, Counter> downlinkOutcomes =
            new EnumMap<>(io.mqttgw.core.spi.DownlinkTarget.Outcome.class);
    private final Counter downlinkRetried;
    private final LongAdder downlinkInflight = new LongAdder();
    private final io.micrometer.core.instrument.Timer downlinkLatency;
    private final Counter aclDeniedPublish;
    private final Map<String, Counter> sessionsOpened = new java.util.HashMap<>();
    private final Map<String, Counter> sessionStoreErrors = new java.util.HashMap<>();
    private final Map<String, Counter> retained = new java.util.HashMap<>();
    private final Counter aclDeniedSubscribe;
    private final Map<String, Counter> publishesRefused = new java.util.HashMap<>();
    private final Map<String, Counter> identitiesRejected = new java.util.HashMap<>();
    private final Map<String, Counter> topicsRefused = new java.util.HashMap<>();

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
        for (TlsFailureReason r : TlsFailureReason.values()) {
            tlsFailures.put(r, Counter.builder("mqttgw.tls.handshake.failures").tag("reason", r.label())
                    .description("TLS handshakes that failed, by reason").register(registry));
        }
        for (MqttConnectReturnCode c : new MqttConnectReturnCode[] {
                MqttConnectReturnCode.CONNECTION_ACCEPTED,
                MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION,
                MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
                MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD,
                MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED,
                MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION,
                MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID,
                MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5,
                MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD,
                MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE_5,
                MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY,
                MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID}) {
            connects.put(c, Counter.builder("mqttgw.connects").tag("result", resultLabel(c))
                    .description("CONNECTs answered, by CONNACK result").register(registry));
        }
        tlsHandshakesFull = Counter.builder("mqttgw.tls.handshakes").tag("session", "new")
                .description("TLS handshakes completed, by new or resumed session").register(registry);
        tlsHandshakesResumed = Counter.builder("mqttgw.tls.handshakes").tag("session", "resumed")
                .description("TLS handshakes completed, by new or resumed session").register(registry);
        io.micrometer.core.instrument.Gauge.builder("mqttgw.tls.resumption.ratio", this, m -> {
            double resumed = m.tlsHandshakesResumed.count();
            double all = resumed + m.tlsHandshakesFull.count();
            return all == 0 ? Double.NaN : resumed / all;
        }).description("Share of completed TLS handshakes since start that resumed a session (for a recent ratio, "
                + "divide the rates of mqttgw_tls_handshakes_total by session)").register(registry);
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
        uplinkRefused = Counter.builder("mqttgw.uplink.refused")
                .description("PUBLISHes the sink refused at once (full or closed): QoS 0 dropped, QoS 1/2 "
                        + "unacknowledged")
                .register(registry);
        uplinkFailed = Counter.builder("mqttgw.uplink.failed")
                .description("PUBLISHes the sink accepted but failed to deliver").register(registry);
        aclDeniedPublish = Counter.builder("mqttgw.acl.denied").tag("action", "publish")
                .description("PUBLISHes and SUBSCRIBE filters outside the device's topic ACL").register(registry);
        aclDeniedSubscribe = Counter.builder("mqttgw.acl.denied").tag("action", "subscribe")
                .description("PUBLISHes and SUBSCRIBE filters outside the device's topic ACL").register(registry);
        for (io.mqttgw.core.spi.DownlinkTarget.Outcome o : io.mqttgw.core.spi.DownlinkTarget.Outcome.values()) {
            downlinkOutcomes.put(o, Counter.builder("mqttgw.downlink.messages").tag("outcome",
                    o.name().toLowerCase(Locale.ROOT)).description("Downlink messages, by outcome").register(registry));
        }
        downlinkRetried = Counter.builder("mqttgw.downlink.retransmissions")
                .description("Downlink PUBLISHes (or PUBRELs) sent again with DUP after downlink.retry-interval")
                .register(registry);
        Gauge.builder("mqttgw.downlink.inflight", downlinkInflight, LongAdder::sum)
                .description("QoS 1/2 downlink messages sent and not yet acknowledged").register(registry);
        downlinkLatency = io.micrometer.core.instrument.Timer.builder("mqttgw.downlink.ack.latency")
                .description("From hand-over to the device's acknowledgement (QoS 1/2)").publishPercentileHistogram()
                .minimumExpectedValue(java.time.Duration.ofMillis(1))
                .maximumExpectedValue(java.time.Duration.ofMinutes(1)).register(registry);
        for (String kind : new String[] {"resumed", "new", "clean", "unavailable"}) {
            sessionsOpened.put(kind, Counter.builder("mqttgw.sessions.opened").tag("session", kind)
                    .description("Sessions opened at CONNECT: a persistent one resumed or new, a clean one, or a "
                            + "persistent one the session store did not answer for in time (served as new)")
                    .register(registry));
        }
        for (String op : SESSION_STORE_OPERATIONS) {
            sessionStoreErrors.put(op, Counter.builder("mqttgw.session.store.errors").tag("operation", op)
                    .description("Session store calls that failed or timed out, by operation").register(registry));
        }
        for (String result : new String[] {"stored", "deleted", "refused"}) {
            retained.put(result, Counter.builder("mqttgw.downlink.retained").tag("result", result)
                    .description("Retained downlink messages stored, deleted (empty payload) or refused (store full "
                            + "or failing)").register(registry));
        }
        java.util.List<String> identityReasons = new java.util.ArrayList<>();
        for (io.mqttgw.core.identity.IdentityRules.Violation v
                : io.mqttgw.core.identity.IdentityRules.Violation.values()) {
            identityReasons.add(v.label());
        }
        identityReasons.add(PROOF_CONFLICT);
        for (String reason : identityReasons) {
            identitiesRejected.put(reason, Counter.builder("mqttgw.identities.rejected").tag("reason", reason)
                    .description("CONNECTs refused with identifier rejected because of their identity: a character "
                            + "rule, or proof_conflict (the id is held by a connection proven the other way)")
                    .register(registry));
        }
        for (String where : TOPIC_PLACES) {
            for (io.mqttgw.core.topic.TopicLimits.Exceeded e
                    : io.mqttgw.core.topic.TopicLimits.Exceeded.values()) {
                topicsRefused.put(where + e.label(), Counter.builder("mqttgw.topics.refused").tag("where", where)
                        .tag("limit", e.label()).description("Topics and filters past mqtt.max-topic-length or "
                                + "mqtt.max-topic-levels, by where they came from").register(registry));
            }
        }
        for (String reason : PUBLISH_REFUSALS) {
            publishesRefused.put(reason, Counter.builder("mqttgw.publish.refused").tag("reason", reason)
                    .description("MQTT 5.0 device PUBLISHes answered with a failure reason code instead of a close")
                    .register(registry));
        }
        takeovers = Counter.builder("mqttgw.takeovers")
                .description("Older connections closed because the same client id connected again").register(registry);
    }

    /** The result label; an MQTT 5.0 code that means what a 3.1.1 one means shares its label (one dashboard). */
    private static String resultLabel(MqttConnectReturnCode code) {
        switch (code) {
            case CONNECTION_ACCEPTED:
                return "accepted";
            case CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID:
                return "refused_identifier_rejected";
            case CONNECTION_REFUSED_NOT_AUTHORIZED_5:
                return "refused_not_authorized";
            case CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD:
                return "refused_bad_user_name_or_password";
            case CONNECTION_REFUSED_SERVER_UNAVAILABLE_5:
                return "refused_server_unavailable";
            default:
                break;
        }
        return code.name().toLowerCase(Locale.ROOT).replace("connection_refused_", "refused_");
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
        (resumed ? tlsHandshakesResumed : tlsHandshakesFull).increment();
    }

    public double tlsHandshakes(boolean resumed) {
        return (resumed ? tlsHandshakesResumed : tlsHandshakesFull).count();
    }

    public void tlsHandshakeFailed(TlsFailureReason reason) {
        tlsFailures.get(reason).increment();
    }

    public void connectAnswered(MqttConnectReturnCode code) {
        Counter c = connects.get(code);
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
    public static final java.util.List<String> PUBLISH_REFUSALS = java.util.List.of("payload_format_invalid",
            "not_authorized", "unspecified_error", "quota_exceeded");

    /**
     * An MQTT 5.0 PUBLISH refused with a reason code on its acknowledgement; @param reason one of {@link
     * #PUBLISH_REFUSALS}
     */
    public void publishRefused(String reason) {
        publishesRefused.get(reason).increment();
    }

    public double publishesRefused(String reason) {
        return publishesRefused.get(reason).count();
    }

    public void aclDenied(boolean publish) {
        (publish ? aclDeniedPublish : aclDeniedSubscribe).increment();
    }

    public double aclDenials(boolean publish) {
        return (publish ? aclDeniedPublish : aclDeniedSubscribe).count();
    }

    public void downlinkOutcome(io.mqttgw.core.spi.DownlinkTarget.Outcome outcome) {
        downlinkOutcomes.get(outcome).increment();
    }

    public double downlinkOutcomes(io.mqttgw.core.spi.DownlinkTarget.Outcome outcome) {
        return downlinkOutcomes.get(outcome).count();
    }

    public void downlinkRetried() {
        downlinkRetried.increment();
    }

    public double downlinkRetransmissions() {
        return downlinkRetried.count();
    }

    public void downlinkInflight(int delta) {
        downlinkInflight.add(delta);
    }

    public void downlinkLatency(long nanos) {
        downlinkLatency.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Operations counted by {@link #sessionStoreError}. */
    public static final java.util.List<String> SESSION_STORE_OPERATIONS = java.util.List.of("open", "disconnected",
            "subscriptions", "append", "remove", "retain", "retained", "will");

    /** @param kind resumed, new, clean or unavailable */
    public void sessionOpened(String kind) {
        sessionsOpened.get(kind).increment();
    }

    public double sessionsOpened(String kind) {
        return sessionsOpened.get(kind).count();
    }

    /** @param operation one of {@link #SESSION_STORE_OPERATIONS} */
    public void sessionStoreError(String operation) {
        sessionStoreErrors.get(operation).increment();
    }

    public double sessionStoreErrors(String operation) {
        return sessionStoreErrors.get(operation).count();
    }

    /** @param result stored, deleted or refused */
    public void retained(String result) {
        retained.get(result).increment();
    }

    public double retainedCount(String result) {
        return retained.get(result).count();
    }

    /** Label of an identity refused because another proof kind holds it. */
    public static final String PROOF_CONFLICT = "proof_conflict";
    /**
     * Where a topic can be refused: {@code publish}, {@code will}, {@code subscribe}, {@code unsubscribe}, {@code
     * downlink}.
     */
    public static final java.util.List<String> TOPIC_PLACES = java.util.List.of("publish", "will", "subscribe",
            "unsubscribe", "downlink");

    /** @param reason an {@code IdentityRules.Violation} label or {@link #PROOF_CONFLICT} */
    public void identityRejected(String reason) {
        identitiesRejected.get(reason).increment();
    }

    public double identitiesRejected(String reason) {
        return identitiesRejected.get(reason).count();
    }

    /** @param where one of {@link #TOPIC_PLACES} */
    public void topicRefused(String where, io.mqttgw.core.topic.TopicLimits.Exceeded limit) {
        topicsRefused.get(where + limit.label()).increment();
    }

    public double topicsRefused(String where, io.mqttgw.core.topic.TopicLimits.Exceeded limit) {
        return topicsRefused.get(where + limit.label()).count();
    }

    public void takeover() {
        takeovers.increment();
    }

    /** Value of a counter for tests and the health check. */
    public double disconnects(DisconnectReason reason) {
        return disconnects.get(reason).count();
    }

    public double tlsFailures(TlsFailureReason reason) {
        return tlsFailures.get(reason).count();
    }

    public double connects(MqttConnectReturnCode code) {
        Counter c = connects.get(code);
        return c == null ? 0 : c.count();
    }

    public double publishesReceived(int qos) {
        return publishIn[qos].count();
    }
}
