package io.mqttgw.core.codec;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;

/**
 * Every reason a device's packet is refused, with the normative statement it breaks. Rules of the packet layout are
 * checked before any field's content counts: a packet that breaks one is refused for it even when an earlier field
 * holds, say, ill-formed UTF-8.
 */
final class Violations {
    // the first byte and the remaining length, checked as soon as they arrive
    static final Violation RESERVED_TYPE = Violation.rule(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.2.1: packet type 0 and 15 are reserved");
    static final Violation FIXED_FLAGS = Violation.rule(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.2.2-2: fixed-header flags other than the packet type prescribes");
    static final Violation PUBLISH_QOS_3 = Violation.rule(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-3.3.1-4: PUBLISH with QoS 3");
    static final Violation AUTH_BEFORE_5 = Violation.rule(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.1.2: packet type 15 (AUTH) exists in MQTT 5.0 only");
    static final Violation REMAINING_LENGTH = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.3: remaining length longer than four bytes");
    static final Violation TOO_LARGE = Violation.rule(DisconnectReason.PACKET_TOO_LARGE,
            "remaining length over mqtt.max-packet-size");

    // the layout of the whole packet
    static final Violation SECOND_CONNECT = Violation.rule(DisconnectReason.SECOND_CONNECT,
            "MQTT-3.1.0-2: a second CONNECT");
    static final Violation RESERVED_CONNECT_FLAG = Violation.rule(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-3: CONNECT reserved flag set");
    static final Violation WILL_QOS_WITHOUT_WILL = Violation.rule(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-13: will QoS without the will flag");
    static final Violation WILL_QOS_3 = Violation.rule(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-14: will QoS 3");
    static final Violation WILL_RETAIN_WITHOUT_WILL = Violation.rule(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-15: will retain without the will flag");
    static final Violation PASSWORD_WITHOUT_USER = Violation.rule(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-22: password flag without the user name flag");
    static final Violation FIELD_PAST_PACKET = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-1.5.3: a length-prefixed field runs past the end of its packet");
    static final Violation BYTES_AFTER_FIELDS = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.3: remaining length larger than the packet's fields");
    static final Violation WRONG_LENGTH = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.3: remaining length other than the packet type's fixed length");
    static final Violation PACKET_ID_ZERO = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.3.1-1: packet identifier 0");
    static final Violation EMPTY_TOPIC = Violation.rule(DisconnectReason.INVALID_TOPIC,
            "MQTT-4.7.3-1: empty topic name or filter");
    static final Violation NO_SUBSCRIPTION = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-3: SUBSCRIBE without a topic filter");
    static final Violation SUBSCRIBE_OPTIONS = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-4: SUBSCRIBE requested QoS 3 or reserved bits set");
    static final Violation NO_UNSUBSCRIPTION = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.10.3-2: UNSUBSCRIBE without a topic filter");
    static final Violation SUBSCRIBE_OPTIONS_5 = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-5: SUBSCRIBE option with QoS 3, retain handling 3 or reserved bits 6-7 set");
    static final Violation PROPERTY_LENGTH = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.2: property length or a property runs past its packet or block");
    static final Violation PROPERTY_UNKNOWN = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.2: unknown property identifier");
    static final Violation PROPERTY_NOT_ALLOWED = Violation.rule(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.2.2: a property this packet type does not carry");
    static final Violation PROPERTY_REPEATED = Violation.rule(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.2.2: a property other than user property given twice");
    static final Violation PROPERTY_VALUE = Violation.rule(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-3.1.2: property value out of range (0 where it must not be, or a flag other than 0 or 1)");
    static final Violation TOPIC_ALIAS_ZERO = Violation.rule(DisconnectReason.TOPIC_ALIAS_INVALID,
            "MQTT-3.3.2-8: topic alias 0");
    static final Violation REASON_CODE = Violation.rule(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.4: a reason code this packet type does not define");
    static final Violation EMPTY_TOPIC_WITHOUT_ALIAS = Violation.rule(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-3.3.2-8: PUBLISH with an empty topic and no topic alias");
    static final Violation SERVER_PACKET = Violation.rule(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.1.2: a packet only a server sends (CONNACK, SUBACK, UNSUBACK, PINGRESP)");

    // the content of a field, counted only when the layout is sound; the device is told the reason code alone
    static final Violation FIELDS_TOO_LARGE = Violation.content(DisconnectReason.PACKET_TOO_LARGE,
            "fixed header and fields over mqtt.max-packet-size");
    static final Violation INVALID_UTF8 = Violation.content(DisconnectReason.INVALID_UTF8,
            "MQTT-1.5.4-1: ill-formed UTF-8");
    static final Violation NUL_CHARACTER = Violation.content(DisconnectReason.MALFORMED_PACKET,
            "MQTT-1.5.4-2: U+0000 in a UTF-8 string");
    static final Violation NUL_IN_PUBLISH_HEADER = Violation.content(DisconnectReason.INVALID_TOPIC,
            "MQTT-1.5.4-2: U+0000 in the topic or a property of a PUBLISH");
    static final Violation TOPIC_WILDCARD = Violation.content(DisconnectReason.INVALID_TOPIC,
            "MQTT-3.3.2-2: wildcard in a PUBLISH topic name");
    static final Violation UNKNOWN_RETURN_CODE = Violation.content(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.2.2.3: unknown CONNACK or SUBACK return code");
    static final Violation SERVER_PACKET_ID_ZERO = Violation.content(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.3.1-1: packet identifier 0");
    static final Violation UNSUPPORTED_PROTOCOL = Violation.refusal(DisconnectReason.UNSUPPORTED_PROTOCOL,
            "MQTT-3.1.2-2: unsupported protocol name or level",
            MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION);
    static final Violation CLIENT_ID_REJECTED = Violation.refusal(DisconnectReason.CONNECT_REFUSED,
            "MQTT 3.1: client identifier of 1 to the configured number of characters",
            MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED);

    private Violations() {
    }
}
