package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.codec.PublishProperties;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.codec.mqtt.MqttVersion;

/**
 * The checks of a CONNECT before anyone is asked about it: protocol and flags (an MQTT 5.0 authentication method is
 * refused, 0x8C: certificates are the authentication here), the client id's length and emptiness, the identity
 * ({@link ClientIdBinding}), the will topic; then the session terms the gateway grants (session expiry, keepalive).
 * Stateless apart from the services; event loop only.
 */
final class ConnectChecks {
    private final SessionServices services;
    private final ClientIdBinding identity;

    ConnectChecks(SessionServices services) {
        this.services = services;
        this.identity = new ClientIdBinding(services);
    }

    /** The protocol and the device's limits a CONNECT announces. */
    static ProtocolCapabilities capabilities(MqttConnectMessage connect) {
        MqttConnectVariableHeader header = connect.variableHeader();
        MqttVersion version = MqttVersion.fromProtocolNameAndLevel(header.name(), (byte) header.version());
        return version == MqttVersion.MQTT_5 ? Mqtt5Connect.capabilities(header.properties())
                : ProtocolCapabilities.legacy(version);
    }

    /** The request to authenticate, or why the CONNECT is refused; each refusal is decided before the next check. */
    CheckOutcome check(MqttConnectMessage connect, ProtocolCapabilities capabilities, ConnectionContext context) {
        MqttConnectVariableHeader header = connect.variableHeader();
        MqttConnectPayload payload = connect.payload();
        if (capabilities.properties() && Mqtt5Connect.namesAuthenticationMethod(header.properties())) {
            // enhanced authentication (SCRAM, Kerberos...) is not offered: the certificate is the authentication
            return new Refused(payload.clientIdentifier(), ConnectRefusal.BAD_AUTHENTICATION_METHOD,
                    DisconnectReason.BAD_AUTHENTICATION_METHOD);
        }
        String requested = payload.clientIdentifier() == null ? "" : payload.clientIdentifier();
        if (ByteBufUtil.utf8Bytes(requested) > services.config().mqtt().maxClientIdLength()) {
            // the decoder limits only an MQTT 3.1 client id; 3.1.1 and 5.0 leave its length to the server
            return new Refused(null, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
        }
        if (requested.isEmpty() && !header.isCleanSession() && !capabilities.properties()) {
            // MQTT-3.1.3-7: a zero-byte client id requires clean session; 5.0 tells the device the id it assigns
            return new Refused(requested, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
        }
        ClientIdBinding.Bound bound = identity.bind(context, requested);
        if (bound.refused() != null) {
            return bound.refused();
        }
        String clientId = bound.clientId();
        UplinkMessage will = null;
        if (header.isWillFlag()) {
            String willTopic = payload.willTopic();
            if (willTopic == null || willTopic.isEmpty() || willTopic.indexOf('+') >= 0
                    || willTopic.indexOf('#') >= 0) {
                return new Refused(clientId, ConnectRefusal.TOPIC_NAME_INVALID, DisconnectReason.INVALID_TOPIC);
            }
            TopicLimits.Exceeded exceeded = services.config().mqtt().topicLimits().check(willTopic);
            if (exceeded != null) {
                services.metrics().topicRefused("will", exceeded);
                return new Refused(clientId, ConnectRefusal.TOPIC_NAME_INVALID, DisconnectReason.TOPIC_LIMIT);
            }
            will = new UplinkMessage(clientId, willTopic, header.willQos(), header.isWillRetain(),
                    payload.willMessageInBytes(), 0L, PublishProperties.read(payload.willProperties()),
                    PublishProperties.expiryInterval(payload.willProperties()));
        }
        return terms(connect, capabilities, clientId, requested.isEmpty() && capabilities.properties(), will);
    }

    /**
     * The session terms granted. MQTT 5.0: the session expiry interval replaces clean session; the interval CONNECT
     * asks for is capped at {@code session.expiry} (CONNACK then names the one granted), the will delay at that
     * interval (the will goes out when the session ends at the latest); a connection gets its {@link Mqtt5Session}
     * only when its session is stored or its will is delayed. A keepalive above {@code mqtt.max-keep-alive} is
     * lowered only for 5.0, which can be told (server keep alive); a 3.1.1 device keeps the keepalive it chose.
     */
    private ConnectRequest terms(MqttConnectMessage connect, ProtocolCapabilities capabilities, String clientId,
                                 boolean assigned, UplinkMessage will) {
        MqttConnectVariableHeader header = connect.variableHeader();
        MqttConnectPayload payload = connect.payload();
        boolean cleanStart = header.isCleanSession();
        long expiryMillis;
        long grantedExpirySeconds = -1;
        Mqtt5Session mqtt5Session = null;
        if (capabilities.properties()) {
            long asked = Mqtt5Connect.sessionExpirySeconds(header.properties());
            long granted = Math.min(asked, services.config().session().expiry().toSeconds());
            if (granted != asked) {
                grantedExpirySeconds = granted;
            }
            long willDelay = will != null
                    ? Math.min(Mqtt5Connect.willDelaySeconds(payload.willProperties()), granted) : 0;
            expiryMillis = granted * 1000L;
            if (!cleanStart || granted > 0 || willDelay > 0) {
                mqtt5Session = new Mqtt5Session((int) granted, (int) willDelay);
            }
        } else {
            expiryMillis = cleanStart ? 0 : SessionStore.LONGEST;
        }
        int keepAliveSeconds = header.keepAliveTimeSeconds();
        int serverKeepAlive = -1;
        int maxKeepAlive = services.config().mqtt().maxKeepAliveSeconds();
        if (capabilities.properties() && maxKeepAlive > 0
                && (keepAliveSeconds == 0 || keepAliveSeconds > maxKeepAlive)) {
            keepAliveSeconds = maxKeepAlive;
            serverKeepAlive = maxKeepAlive;
        }
        return new ConnectRequest(capabilities, clientId, assigned ? clientId : null, will, cleanStart, expiryMillis,
                grantedExpirySeconds, mqtt5Session, keepAliveSeconds, serverKeepAlive, payload.userName(),
                payload.passwordInBytes());
    }
}
