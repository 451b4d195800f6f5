package io.mqttgw.core.codec;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * What makes an MQTT 3.1 / 3.1.1 / 5.0 packet invalid before it is decoded: the fixed-header flags each packet type
 * requires, the CONNECT flag combinations the spec forbids, empty topic names and filters, packet id 0, a SUBSCRIBE
 * option byte outside QoS 0-2, and every length-prefixed field staying inside its packet with the packet's fields
 * filling it exactly. Netty's decoder reads fields as far as their length prefix says, across the packet's end into
 * the next packet's bytes, and turns some values into array or enum indexes; a packet that passes here it reads
 * exactly and safely. The decoder keeps what it checks after this: UTF-8, wildcards in a topic name, the protocol
 * level. For MQTT 5.0 (the packets after a level-5 CONNECT, and that CONNECT) also: every property block inside its
 * packet and filled exactly by well-formed properties the packet type allows, none repeated but user properties,
 * values the spec bounds within bounds; the optional reason code and properties of PUBACK, PUBREC, PUBREL, PUBCOMP,
 * DISCONNECT and AUTH; the SUBSCRIBE option bits; AUTH (type 15) only in 5.0. Works on a whole frame by absolute
 * index, never moves a reader index; stateless.
 */
final class PacketRules {
    /** Why a packet is invalid: the close reason it is counted under and the normative statement it breaks. */
    record Violation(DisconnectReason reason, String rule) {
    }

    private static final byte[] MQTT = "MQTT".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MQISDP = "MQIsdp".getBytes(StandardCharsets.US_ASCII);

    private static final Violation RESERVED_TYPE = new Violation(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.2.1: packet type 0 and 15 are reserved");
    private static final Violation FIXED_FLAGS = new Violation(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.2.2-2: fixed-header flags other than the packet type prescribes");
    private static final Violation PUBLISH_QOS_3 = new Violation(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-3.3.1-4: PUBLISH with QoS 3");
    private static final Violation RESERVED_CONNECT_FLAG = new Violation(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-3: CONNECT reserved flag set");
    private static final Violation WILL_QOS_WITHOUT_WILL = new Violation(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-13: will QoS without the will flag");
    private static final Violation WILL_QOS_3 = new Violation(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-14: will QoS 3");
    private static final Violation WILL_RETAIN_WITHOUT_WILL = new Violation(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-15: will retain without the will flag");
    private static final Violation PASSWORD_WITHOUT_USER = new Violation(DisconnectReason.INVALID_CONNECT_FLAGS,
            "MQTT-3.1.2-22: password flag without the user name flag");
    static final Violation FIELD_PAST_PACKET = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-1.5.3: a length-prefixed field runs past the end of its packet");
    static final Violation BYTES_AFTER_FIELDS = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.3: remaining length larger than the packet's fields");
    static final Violation WRONG_LENGTH = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.3: remaining length other than the packet type's fixed length");
    static final Violation PACKET_ID_ZERO = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.3.1-1: packet identifier 0");
    static final Violation EMPTY_TOPIC = new Violation(DisconnectReason.INVALID_TOPIC,
            "MQTT-4.7.3-1: empty topic name or filter");
    static final Violation NO_SUBSCRIPTION = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-3: SUBSCRIBE without a topic filter");
    private static final Violation SUBSCRIBE_OPTIONS = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-4: SUBSCRIBE requested QoS 3 or reserved bits set");
    static final Violation NO_UNSUBSCRIPTION = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.10.3-2: UNSUBSCRIBE without a topic filter");

    static final Violation AUTH_BEFORE_5 = new Violation(DisconnectReason.INVALID_FIXED_HEADER,
            "MQTT-2.1.2: packet type 15 (AUTH) exists in MQTT 5.0 only");
    static final Violation SUBSCRIBE_OPTIONS_5 = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-3.8.3-5: SUBSCRIBE option with QoS 3, retain handling 3 or reserved bits 6-7 set");
    static final Violation PROPERTY_LENGTH = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.2: property length or a property runs past its packet or block");
    static final Violation PROPERTY_UNKNOWN = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.2.2: unknown property identifier");
    static final Violation PROPERTY_NOT_ALLOWED = new Violation(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.2.2: a property this packet type does not carry");
    static final Violation PROPERTY_REPEATED = new Violation(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.2.2: a property other than user property given twice");
    static final Violation PROPERTY_VALUE = new Violation(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-3.1.2: property value out of range (0 where it must not be, or a flag other than 0 or 1)");
    static final Violation REASON_CODE = new Violation(DisconnectReason.MALFORMED_PACKET,
            "MQTT-2.4: a reason code this packet type does not define");
    static final Violation EMPTY_TOPIC_WITHOUT_ALIAS = new Violation(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-3.3.2-8: PUBLISH with an empty topic and no topic alias");

    private PacketRules() {
    }

    /**
     * Checks the first byte alone, so a bad one is refused before the rest of its packet arrives.
     *
     * @param mqtt5 whether a level-5 CONNECT opened the connection
     */
    static Violation checkFixedHeader(int firstByte, boolean mqtt5) {
        int type = firstByte >> 4;
        int flags = firstByte & 0x0F;
        switch (type) {
            case 0:
                return RESERVED_TYPE;
            case 15:
                if (!mqtt5) {
                    return AUTH_BEFORE_5;
                }
                return flags == 0 ? null : FIXED_FLAGS;
            case 3:
                return (flags & 0x06) == 0x06 ? PUBLISH_QOS_3 : null;
            case 6, 8, 10:
                return flags == 0x02 ? null : FIXED_FLAGS;
            default:
                return flags == 0 ? null : FIXED_FLAGS;
        }
    }

    /**
     * Checks the variable header and payload of a packet whose first byte passed {@link #checkFixedHeader}.
     * {@code body} is exactly the packet's remaining length; null when the packet is valid or is a CONNECT of a
     * protocol other than 3.1 / 3.1.1 / 5.0 (the decoder refuses that with the CONNACK the spec asks for).
     *
     * @param mqtt5 whether a level-5 CONNECT opened the connection (a CONNECT is checked by its own level)
     */
    static Violation checkBody(int firstByte, ByteBuf body, boolean mqtt5) {
        int start = body.readerIndex();
        int end = start + body.readableBytes();
        if (mqtt5 && (firstByte >> 4) != 1) {
            return Mqtt5Layouts.check(firstByte, body, start, end);
        }
        switch (firstByte >> 4) {
            case 1:
                return connect(body, start, end);
            case 3:
                return publish(body, start, end, (firstByte >> 1) & 0x03);
            case 2:
                return end - start == 2 ? null : WRONG_LENGTH;
            case 4, 5, 6, 7, 11:
                if (end - start != 2) {
                    return WRONG_LENGTH;
                }
                return body.getUnsignedShort(start) == 0 ? PACKET_ID_ZERO : null;
            case 8:
                return subscribe(body, start, end);
            case 9:
                return end - start >= 3 ? null : WRONG_LENGTH;
            case 10:
                return unsubscribe(body, start, end);
            default:
                // PINGREQ, PINGRESP, DISCONNECT
                return end == start ? null : WRONG_LENGTH;
        }
    }

    /** Whether a CONNECT body that passed {@link #checkBody} names MQTT 5.0 (protocol name MQTT, level 5). */
    static boolean isMqtt5Connect(ByteBuf body) {
        int start = body.readerIndex();
        int nameEnd = fieldEnd(body, start, start + body.readableBytes());
        return nameEnd > 0 && nameEnd < start + body.readableBytes() && body.getUnsignedByte(nameEnd) == 5
                && nameIs(body, start, nameEnd, MQTT);
    }

    private static Violation connect(ByteBuf b, int start, int end) {
        int nameEnd = fieldEnd(b, start, end);
        if (nameEnd < 0 || nameEnd >= end) {
            return FIELD_PAST_PACKET;
        }
        int level = b.getUnsignedByte(nameEnd);
        boolean v5 = level == 5 && nameIs(b, start, nameEnd, MQTT);
        boolean known = v5 || level == 4 && nameIs(b, start, nameEnd, MQTT)
                || level == 3 && nameIs(b, start, nameEnd, MQISDP);
        if (!known) {
            return null;
        }
        int p = nameEnd + 1;
        if (p + 3 > end) {
            return FIELD_PAST_PACKET;
        }
        int flags = b.getUnsignedByte(p);
        p += 3;
        boolean user = (flags & 0x80) != 0;
        boolean password = (flags & 0x40) != 0;
        boolean willRetain = (flags & 0x20) != 0;
        int willQos = (flags >> 3) & 0x03;
        boolean will = (flags & 0x04) != 0;
        if ((flags & 0x01) != 0) {
            return RESERVED_CONNECT_FLAG;
        }
        if (willQos == 3) {
            return WILL_QOS_3;
        }
        if (!will && willQos != 0) {
            return WILL_QOS_WITHOUT_WILL;
        }
        if (!will && willRetain) {
            return WILL_RETAIN_WITHOUT_WILL;
        }
        if (password && !user && !v5) {
            // MQTT 5.0 allows a password without a user name
            return PASSWORD_WITHOUT_USER;
        }
        if (v5) {
            p = Mqtt5Layouts.properties(b, p, end, Mqtt5Layouts.CONNECT);
            if (p < 0) {
                return Mqtt5Layouts.violation(p);
            }
        }
        p = fieldEnd(b, p, end);
        if (p >= 0 && will && v5) {
            p = Mqtt5Layouts.properties(b, p, end, Mqtt5Layouts.WILL);
            if (p < 0) {
                return Mqtt5Layouts.violation(p);
            }
        }
        if (p >= 0 && will) {
            int topicStart = p;
            p = fieldEnd(b, p, end);
            if (p == topicStart + 2) {
                return EMPTY_TOPIC;
            }
            p = fieldEnd(b, p, end);
        }
        if (p >= 0 && user) {
            p = fieldEnd(b, p, end);
        }
        if (p >= 0 && password) {
            p = fieldEnd(b, p, end);
        }
        return p < 0 ? FIELD_PAST_PACKET : p == end ? null : BYTES_AFTER_FIELDS;
    }

    private static Violation publish(ByteBuf b, int start, int end, int qos) {
        int p = fieldEnd(b, start, end);
        if (p < 0) {
            return FIELD_PAST_PACKET;
        }
        if (p == start + 2) {
            return EMPTY_TOPIC;
        }
        if (qos > 0) {
            if (p + 2 > end) {
                return FIELD_PAST_PACKET;
            }
            if (b.getUnsignedShort(p) == 0) {
                return PACKET_ID_ZERO;
            }
        }
        return null;
    }

    private static Violation subscribe(ByteBuf b, int start, int end) {
        Violation id = packetId(b, start, end);
        if (id != null) {
            return id;
        }
        int p = start + 2;
        if (p == end) {
            return NO_SUBSCRIPTION;
        }
        while (p < end) {
            int filterStart = p;
            p = fieldEnd(b, p, end);
            if (p < 0 || p >= end) {
                return FIELD_PAST_PACKET;
            }
            if (p == filterStart + 2) {
                return EMPTY_TOPIC;
            }
            if ((b.getUnsignedByte(p) & 0xFC) != 0 || (b.getUnsignedByte(p) & 0x03) == 0x03) {
                return SUBSCRIBE_OPTIONS;
            }
            p++;
        }
        return null;
    }

    private static Violation unsubscribe(ByteBuf b, int start, int end) {
        Violation id = packetId(b, start, end);
        if (id != null) {
            return id;
        }
        int p = start + 2;
        if (p == end) {
            return NO_UNSUBSCRIPTION;
        }
        while (p < end) {
            int filterStart = p;
            p = fieldEnd(b, p, end);
            if (p < 0) {
                return FIELD_PAST_PACKET;
            }
            if (p == filterStart + 2) {
                return EMPTY_TOPIC;
            }
        }
        return null;
    }

    static Violation packetId(ByteBuf b, int start, int end) {
        if (start + 2 > end) {
            return FIELD_PAST_PACKET;
        }
        return b.getUnsignedShort(start) == 0 ? PACKET_ID_ZERO : null;
    }

    /**
     * The index after the two-byte-length-prefixed field at {@code p}, or -1 when it does not fit before {@code end}.
     */
    static int fieldEnd(ByteBuf b, int p, int end) {
        if (p < 0 || p + 2 > end) {
            return -1;
        }
        int after = p + 2 + b.getUnsignedShort(p);
        return after <= end ? after : -1;
    }

    private static boolean nameIs(ByteBuf b, int start, int nameEnd, byte[] name) {
        if (nameEnd - start - 2 != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (b.getByte(start + 2 + i) != name[i]) {
                return false;
            }
        }
        return true;
    }
}
