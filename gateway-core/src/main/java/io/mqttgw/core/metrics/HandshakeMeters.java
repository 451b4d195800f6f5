package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Meters of a device's way in: TLS handshakes completed (new or resumed) or failed by reason, and CONNECTs answered
 * by CONNACK result. Created once, so counting a handshake or a CONNACK is one increment with no lookup by tag.
 *
 * <p>Thread-safe; counted from every event loop, read at scrape time on the admin thread.
 */
final class HandshakeMeters {
    private final Map<TlsFailureReason, Counter> tlsFailures = new EnumMap<>(TlsFailureReason.class);
    private final Map<MqttConnectReturnCode, Counter> connects = new EnumMap<>(MqttConnectReturnCode.class);
    private final Counter tlsHandshakesFull;
    private final Counter tlsHandshakesResumed;

    HandshakeMeters(MeterRegistry registry) {
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
        Gauge.builder("mqttgw.tls.resumption.ratio", this, m -> {
            double resumed = m.tlsHandshakesResumed.count();
            double all = resumed + m.tlsHandshakesFull.count();
            return all == 0 ? Double.NaN : resumed / all;
        }).description("Share of completed TLS handshakes since start that resumed a session (for a recent ratio, "
                + "divide the rates of mqttgw_tls_handshakes_total by session)").register(registry);
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

    Counter handshakes(boolean resumed) {
        return resumed ? tlsHandshakesResumed : tlsHandshakesFull;
    }

    Counter failures(TlsFailureReason reason) {
        return tlsFailures.get(reason);
    }

    /** The counter of a CONNACK result, or null for a code this gateway never sends. */
    Counter connects(MqttConnectReturnCode code) {
        return connects.get(code);
    }
}
