package io.mqttgw.core.connection;

import java.util.Locale;

/**
 * Why a connection closed; each value is a label of {@code mqttgw_disconnects_total} and carries the MQTT 5.0 reason
 * code a 5.0 device is told in the server DISCONNECT ({@link #reasonCode()}).
 */
public enum DisconnectReason {
    /** The device sent DISCONNECT. */
    CLIENT_DISCONNECT(Codes.NONE),
    /** The socket closed or failed without a DISCONNECT. */
    CONNECTION_LOST(Codes.NONE),
    /** No packet within 1.5 times the keepalive. */
    KEEPALIVE_TIMEOUT(0x8D),
    /** No CONNECT within {@code mqtt.connect-timeout}. */
    CONNECT_TIMEOUT(Codes.NONE),
    /** The TLS handshake failed or timed out. */
    TLS_HANDSHAKE_FAILED(Codes.NONE),
    /** A newer connection with the same client id took over. */
    TAKEOVER(0x8E),
    /** CONNECT refused: CONNACK with a non-zero return code was sent. */
    CONNECT_REFUSED(Codes.NONE),
    /**
     * CONNECT refused with identifier rejected: the identity breaks the identity rules (wildcards, '/', a leading
     * '$', control characters), whatever its source.
     */
    INVALID_IDENTITY(Codes.NONE),
    /**
     * CONNECT refused with identifier rejected: a connection whose identity was proven the other way (with a
     * certificate, or without one) holds the client id on this node.
     */
    IDENTITY_CONFLICT(0x87),
    /** A PUBLISH or will topic past {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels}. */
    TOPIC_LIMIT(0x90),
    /** An unknown protocol level (CONNACK unacceptable protocol version / unsupported protocol version). */
    UNSUPPORTED_PROTOCOL(Codes.NONE),
    /** The first packet was not CONNECT. */
    FIRST_PACKET_NOT_CONNECT(Codes.NONE),
    /** A second CONNECT on an open session. */
    SECOND_CONNECT(0x82),
    /** Packets a device must not send (CONNACK, SUBACK, ...), or too many before CONNACK. */
    PROTOCOL_VIOLATION(0x82),
    /** Packet larger than {@code mqtt.max-packet-size}. */
    PACKET_TOO_LARGE(0x95),
    /** A string that is not well-formed UTF-8 or contains U+0000. */
    INVALID_UTF8(0x81),
    /** Fixed header with QoS 3, reserved flags set, or an unknown packet type. */
    INVALID_FIXED_HEADER(0x81),
    /**
     * CONNECT flags the spec forbids: reserved flag, will QoS 3, will QoS or retain without will, password without
     * user name.
     */
    INVALID_CONNECT_FLAGS(0x81),
    /** PUBLISH topic with wildcards or otherwise invalid. */
    INVALID_TOPIC(0x90),
    /** Any other decoding failure. */
    MALFORMED_PACKET(0x81),
    /** PUBLISH to a topic outside the device's ACL, with {@code acl.on-violation: disconnect}. */
    NOT_AUTHORIZED(0x87),
    /**
     * The uplink sink refused or failed a QoS 1/2 PUBLISH: an MQTT 3.1.1 device retransmits an unacknowledged
     * message only after a reconnect, so the connection is closed for it to do so.
     */
    SINK_FAILED(0x80),
    /** CONNECT refused while the node is overloaded (CONNACK server unavailable). */
    OVERLOADED(0x89),
    /** A listener with PROXY protocol got a connection from an address not in proxy-protocol.trusted-sources. */
    UNTRUSTED_PROXY(Codes.NONE),
    /** No valid PROXY header within proxy-protocol.header-timeout. */
    PROXY_PROTOCOL_ERROR(Codes.NONE),
    /**
     * The device did not read what the gateway sent: its channel stayed unwritable past {@code
     * mqtt.write-stall-timeout}
     * or its pending outbound bytes passed {@code mqtt.max-pending-outbound}.
     */
    SLOW_CONSUMER(Codes.NONE),
    /** The gateway is shutting down (draining); the device was told 0x8B, or (3.1.1) its connection closed. */
    SHUTDOWN(0x8B),
    /**
     * MQTT 5.0: the gateway is draining and told the device another server to use ({@code shutdown.server-reference})
     * with DISCONNECT 0x9C and the Server Reference property.
     */
    USE_ANOTHER_SERVER(0x9C),
    /** MQTT 5.0: the device sent more QoS 1/2 PUBLISHes unacknowledged than the receive maximum announced. */
    RECEIVE_MAXIMUM_EXCEEDED(0x93),
    /** MQTT 5.0: a PUBLISH named a topic alias 0, above the announced maximum, or unknown with an empty topic. */
    TOPIC_ALIAS_INVALID(0x94),
    /** MQTT 5.0: the device passed a quota the gateway keeps (uplink sink refusing, a per-device limit). */
    QUOTA_EXCEEDED(0x97),
    /** MQTT 5.0: a PUBLISH marked as UTF-8 (payload format indicator 1) whose payload is not well-formed UTF-8. */
    PAYLOAD_FORMAT_INVALID(0x99),
    /**
     * A reloaded {@code listener.tls.crl-file} revokes the certificate the connection was verified with (or one of its
     * path). MQTT 5.0 has no "banned" DISCONNECT (0x8A is a CONNACK code only): the device is told 0x87, not
     * authorized.
     */
    CERTIFICATE_REVOKED(0x87),
    /** An operator closed the connection ({@code DELETE /clients/{id}} on the operations endpoints). */
    ADMINISTRATIVE(0x98),
    /**
     * MQTT 5.0: CONNECT named an authentication method, or the device sent AUTH: certificates are the authentication
     * here, enhanced authentication is not offered.
     */
    BAD_AUTHENTICATION_METHOD(0x8C),
    /** MQTT 5.0: the device sent DISCONNECT with reason 0x04 (disconnect with will message): its will is published. */
    CLIENT_DISCONNECT_WITH_WILL(Codes.NONE),
    /** MQTT 5.0: the device sent DISCONNECT with an error reason code (0x80 and above): its will is published. */
    CLIENT_ERROR(Codes.NONE),
    /** An unexpected error in the gateway; logged. */
    INTERNAL_ERROR(0x80);

    /** No server DISCONNECT for this reason. */
    public static final int NONE = Codes.NONE;

    private final String label = name().toLowerCase(Locale.ROOT);
    private final int reasonCode;

    DisconnectReason(int reasonCode) {
        this.reasonCode = reasonCode;
    }

    /** The metric label. */
    public String label() {
        return label;
    }

    /**
     * The MQTT 5.0 reason code of the DISCONNECT the gateway sends a 5.0 device when it closes the connection for
     * this reason, or {@link #NONE}: the device closed it, the connection has no MQTT session to speak to (before
     * the accepting CONNACK the refusal is the CONNACK itself), or it cannot take more bytes. The one mapping.
     */
    public int reasonCode() {
        return reasonCode;
    }

    /** Whether a 5.0 device is told this reason in a server DISCONNECT. */
    public boolean toldToDevice() {
        return reasonCode != Codes.NONE;
    }

    /** Holds the "no code" value so the constants above can name it (an enum's own statics come after them). */
    private static final class Codes {
        static final int NONE = -1;
    }
}
