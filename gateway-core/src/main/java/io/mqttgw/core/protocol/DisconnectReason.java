package io.mqttgw.core.protocol;

import java.util.Locale;

/** Why a connection closed; each value is a label of {@code mqttgw_disconnects_total}. */
public enum DisconnectReason {
    /** The device sent DISCONNECT. */
    CLIENT_DISCONNECT,
    /** The socket closed or failed without a DISCONNECT. */
    CONNECTION_LOST,
    /** No packet within 1.5 times the keepalive. */
    KEEPALIVE_TIMEOUT,
    /** No CONNECT within {@code mqtt.connect-timeout}. */
    CONNECT_TIMEOUT,
    /** The TLS handshake failed or timed out. */
    TLS_HANDSHAKE_FAILED,
    /** A newer connection with the same client id took over. */
    TAKEOVER,
    /** CONNECT refused: CONNACK with a non-zero return code was sent. */
    CONNECT_REFUSED,
    /**
     * CONNECT refused with identifier rejected: the identity breaks the identity rules (wildcards, '/', a leading
     * '$', control characters), whatever its source.
     */
    INVALID_IDENTITY,
    /**
     * CONNECT refused with identifier rejected: a connection whose identity was proven the other way (with a
     * certificate, or without one) holds the client id on this node.
     */
    IDENTITY_CONFLICT,
    /** A PUBLISH or will topic past {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels}. */
    TOPIC_LIMIT,
    /** MQTT 5 or an unknown protocol level. */
    UNSUPPORTED_PROTOCOL,
    /** The first packet was not CONNECT. */
    FIRST_PACKET_NOT_CONNECT,
    /** A second CONNECT on an open session. */
    SECOND_CONNECT,
    /** Packets a device must not send (CONNACK, SUBACK, ...), or too many before CONNACK. */
    PROTOCOL_VIOLATION,
    /** Packet larger than {@code mqtt.max-packet-size}. */
    PACKET_TOO_LARGE,
    /** A string that is not well-formed UTF-8 or contains U+0000. */
    INVALID_UTF8,
    /** Fixed header with QoS 3, reserved flags set, or an unknown packet type. */
    INVALID_FIXED_HEADER,
    /** CONNECT flags the spec forbids: reserved flag, will QoS 3, will QoS or retain without will, password without user name. */
    INVALID_CONNECT_FLAGS,
    /** PUBLISH topic with wildcards or otherwise invalid. */
    INVALID_TOPIC,
    /** Any other decoding failure. */
    MALFORMED_PACKET,
    /** PUBLISH to a topic outside the device's ACL, with {@code acl.on-violation: disconnect}. */
    NOT_AUTHORIZED,
    /**
     * The uplink sink refused or failed a QoS 1/2 PUBLISH: an MQTT 3.1.1 device retransmits an unacknowledged
     * message only after a reconnect, so the connection is closed for it to do so.
     */
    SINK_FAILED,
    /** CONNECT refused while the node is overloaded (CONNACK server unavailable). */
    OVERLOADED,
    /** A listener with PROXY protocol got a connection from an address not in proxy-protocol.trusted-sources. */
    UNTRUSTED_PROXY,
    /** No valid PROXY header within proxy-protocol.header-timeout. */
    PROXY_PROTOCOL_ERROR,
    /**
     * The device did not read what the gateway sent: its channel stayed unwritable past {@code mqtt.write-stall-timeout}
     * or its pending outbound bytes passed {@code mqtt.max-pending-outbound}.
     */
    SLOW_CONSUMER,
    /** An operator closed the connection ({@code DELETE /clients/{id}} on the operations endpoints). */
    ADMINISTRATIVE,
    /** The gateway is shutting down. */
    SHUTDOWN,
    /** An unexpected error in the gateway; logged. */
    INTERNAL_ERROR;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label. */
    public String label() {
        return label;
    }
}
