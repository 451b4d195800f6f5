package io.mqttgw.core.codec;

import io.mqttgw.core.codec.PacketRules.Violation;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBuf;

/**
 * The MQTT 5.0 half of {@link PacketRules}: the layouts of the packets a device sends after a level-5 CONNECT, and
 * the property blocks of those packets, of that CONNECT and of its will. A property block must stay inside its packet
 * and be filled exactly by well-formed properties of the packet type (MQTT 5.0 section 2.2.2.2), none but user
 * properties repeated, with the values the spec bounds in bounds. Netty's decoder reads property values by their
 * length prefixes and trusts the block length; a packet that passes here it reads exactly. Works on a whole frame by
 * absolute index; stateless.
 */
final class Mqtt5Layouts {
    /** Property sets by packet, as bit masks over the property identifiers (all below 64). */
    static final long CONNECT = mask(0x11, 0x15, 0x16, 0x17, 0x19, 0x21, 0x22, 0x26, 0x27);
    static final long WILL = mask(0x01, 0x02, 0x03, 0x08, 0x09, 0x18, 0x26);
    /** An uplink PUBLISH: a device must not send a subscription identifier (MQTT-3.3.4-6). */
    static final long PUBLISH = mask(0x01, 0x02, 0x03, 0x08, 0x09, 0x23, 0x26);
    static final long ACK = mask(0x1F, 0x26);
    static final long SUBSCRIBE = mask(0x0B, 0x26);
    static final long UNSUBSCRIBE = mask(0x26);
    static final long DISCONNECT = mask(0x11, 0x1C, 0x1F, 0x26);
    static final long AUTH = mask(0x15, 0x16, 0x1F, 0x26);

    private static final int TOPIC_ALIAS = 0x23;
    private static final int USER_PROPERTY = 0x26;

    /** How a property's value is laid out, by identifier; 0: no such property. */
    private static final byte[] KIND = new byte[0x2B];
    private static final byte BYTE = 1;
    private static final byte TWO = 2;
    private static final byte FOUR = 4;
    private static final byte VARIABLE = 5;
    /** A UTF-8 string or binary data: two-byte length then the bytes. */
    private static final byte PREFIXED = 6;
    private static final byte PAIR = 7;

    static {
        for (int id : new int[] {0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A}) {
            KIND[id] = BYTE;
        }
        for (int id : new int[] {0x13, 0x21, 0x22, 0x23}) {
            KIND[id] = TWO;
        }
        for (int id : new int[] {0x02, 0x11, 0x18, 0x27}) {
            KIND[id] = FOUR;
        }
        KIND[0x0B] = VARIABLE;
        for (int id : new int[] {0x03, 0x08, 0x09, 0x12, 0x15, 0x16, 0x1A, 0x1C, 0x1F}) {
            KIND[id] = PREFIXED;
        }
        KIND[USER_PROPERTY] = PAIR;
    }

    /** Flags that must be 0 or 1: payload format indicator, request problem / response information. */
    private static final long FLAGS = mask(0x01, 0x17, 0x19);
    /** Values that must not be 0: subscription identifier, receive maximum, maximum packet size. */
    private static final long NON_ZERO = mask(0x0B, 0x21, 0x27);

    private static final boolean[] PUBACK_CODES = codes(0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99);
    private static final boolean[] PUBREL_CODES = codes(0x00, 0x92);
    private static final boolean[] DISCONNECT_CODES = codes(0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x87, 0x89, 0x8B,
            0x8D, 0x8E, 0x8F, 0x90, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F, 0xA0,
            0xA1, 0xA2);
    private static final boolean[] AUTH_CODES = codes(0x00, 0x18, 0x19);

    private static final Violation SERVER_PACKET = new Violation(DisconnectReason.PROTOCOL_VIOLATION,
            "MQTT-2.1.2: a packet only a server sends (CONNACK, SUBACK, UNSUBACK, PINGRESP)");
    private static final Violation TOPIC_ALIAS_ZERO = new Violation(DisconnectReason.TOPIC_ALIAS_INVALID,
            "MQTT-3.3.2-8: topic alias 0");

    /** What a negative answer of {@link #properties} stands for, by {@code -answer - 1}. */
    private static final Violation[] PROPERTY_VIOLATIONS = {PacketRules.PROPERTY_LENGTH, PacketRules.PROPERTY_UNKNOWN,
            PacketRules.PROPERTY_NOT_ALLOWED, PacketRules.PROPERTY_REPEATED, PacketRules.PROPERTY_VALUE,
            TOPIC_ALIAS_ZERO};

    private Mqtt5Layouts() {
    }

    /** Checks a packet other than CONNECT on a 5.0 connection; see {@link PacketRules#checkBody}. */
    static Violation check(int firstByte, ByteBuf b, int start, int end) {
        int length = end - start;
        switch (firstByte >> 4) {
            case 3:
                return publish(b, start, end, (firstByte >> 1) & 0x03);
            case 4, 5:
                return acknowledgement(b, start, end, PUBACK_CODES);
            case 6, 7:
                return acknowledgement(b, start, end, PUBREL_CODES);
            case 8:
                return subscribe(b, start, end);
            case 10:
                return unsubscribe(b, start, end);
            case 12:
                return length == 0 ? null : PacketRules.WRONG_LENGTH;
            case 14:
                // remaining length 0: reason 0x00 without properties; 1: a reason code alone
                return length == 0 ? null : reasonAndProperties(b, start, end, DISCONNECT_CODES, DISCONNECT);
            case 15:
                // AUTH leaves out both only together (MQTT 5.0 section 3.15.2.1)
                return length == 0 ? null : length == 1 ? PacketRules.WRONG_LENGTH
                        : reasonAndProperties(b, start, end, AUTH_CODES, AUTH);
            default:
                return SERVER_PACKET;
        }
    }

    private static Violation publish(ByteBuf b, int start, int end, int qos) {
        int p = PacketRules.fieldEnd(b, start, end);
        if (p < 0) {
            return PacketRules.FIELD_PAST_PACKET;
        }
        boolean emptyTopic = p == start + 2;
        if (qos > 0) {
            if (p + 2 > end) {
                return PacketRules.FIELD_PAST_PACKET;
            }
            if (b.getUnsignedShort(p) == 0) {
                return PacketRules.PACKET_ID_ZERO;
            }
            p += 2;
        }
        int propertiesAt = p;
        p = properties(b, p, end, PUBLISH);
        if (p < 0) {
            return violation(p);
        }
        if (emptyTopic && !hasProperty(b, propertiesAt, TOPIC_ALIAS)) {
            return PacketRules.EMPTY_TOPIC_WITHOUT_ALIAS;
        }
        return null;
    }

    /** PUBACK, PUBREC, PUBREL, PUBCOMP: packet id, then optionally a reason code, then optionally properties. */
    private static Violation acknowledgement(ByteBuf b, int start, int end, boolean[] codes) {
        if (end - start < 2) {
            return PacketRules.WRONG_LENGTH;
        }
        if (b.getUnsignedShort(start) == 0) {
            return PacketRules.PACKET_ID_ZERO;
        }
        return end - start == 2 ? null : reasonAndProperties(b, start + 2, end, codes, ACK);
    }

    /** A reason code, then (unless it ends there) a property block that must end the packet. */
    private static Violation reasonAndProperties(ByteBuf b, int p, int end, boolean[] codes, long allowed) {
        if (!codes[b.getUnsignedByte(p)]) {
            return PacketRules.REASON_CODE;
        }
        p++;
        if (p == end) {
            return null;
        }
        p = properties(b, p, end, allowed);
        if (p < 0) {
            return violation(p);
        }
        return p == end ? null : PacketRules.BYTES_AFTER_FIELDS;
    }

    private static Violation subscribe(ByteBuf b, int start, int end) {
        Violation id = PacketRules.packetId(b, start, end);
        if (id != null) {
            return id;
        }
        int p = properties(b, start + 2, end, SUBSCRIBE);
        if (p < 0) {
            return violation(p);
        }
        if (p == end) {
            return PacketRules.NO_SUBSCRIPTION;
        }
        while (p < end) {
            int filterStart = p;
            p = PacketRules.fieldEnd(b, p, end);
            if (p < 0 || p >= end) {
                return PacketRules.FIELD_PAST_PACKET;
            }
            if (p == filterStart + 2) {
                return PacketRules.EMPTY_TOPIC;
            }
            int options = b.getUnsignedByte(p);
            if ((options & 0xC0) != 0 || (options & 0x03) == 0x03 || (options & 0x30) == 0x30) {
                return PacketRules.SUBSCRIBE_OPTIONS_5;
            }
            p++;
        }
        return null;
    }

    private static Violation unsubscribe(ByteBuf b, int start, int end) {
        Violation id = PacketRules.packetId(b, start, end);
        if (id != null) {
            return id;
        }
        int p = properties(b, start + 2, end, UNSUBSCRIBE);
        if (p < 0) {
            return violation(p);
        }
        if (p == end) {
            return PacketRules.NO_UNSUBSCRIPTION;
        }
        while (p < end) {
            int filterStart = p;
            p = PacketRules.fieldEnd(b, p, end);
            if (p < 0) {
                return PacketRules.FIELD_PAST_PACKET;
            }
            if (p == filterStart + 2) {
                return PacketRules.EMPTY_TOPIC;
            }
        }
        return null;
    }

    /**
     * Walks the property block at {@code p} (a variable byte integer length, then the properties) that must end by
     * {@code end}. Returns the index after the block, or a negative value for {@link #violation}: the block or a
     * property runs past its end, an unknown identifier, one not in {@code allowed}, a repeated one (user properties
     * aside), a value out of bounds. No allocation.
     */
    static int properties(ByteBuf b, int p, int end, long allowed) {
        if (p < 0 || p >= end) {
            return -1;
        }
        long lengthAndSize = variableInteger(b, p, end);
        if (lengthAndSize < 0) {
            return -1;
        }
        int blockStart = p + (int) (lengthAndSize >>> 32);
        int blockEnd = blockStart + (int) lengthAndSize;
        if (blockEnd > end || blockEnd < blockStart) {
            return -1;
        }
        long seen = 0;
        int q = blockStart;
        while (q < blockEnd) {
            int id = b.getUnsignedByte(q++);
            // identifiers are variable byte integers, but every defined one fits in one byte
            if (id >= KIND.length || KIND[id] == 0) {
                return -2;
            }
            if ((allowed & (1L << id)) == 0) {
                return -3;
            }
            if (id != USER_PROPERTY && (seen & (1L << id)) != 0) {
                return -4;
            }
            seen |= 1L << id;
            int next = valueEnd(b, q, id, blockEnd);
            if (next < 0) {
                return -1;
            }
            long value = value(b, q, id);
            q = next;
            if ((FLAGS & (1L << id)) != 0 && value > 1 || (NON_ZERO & (1L << id)) != 0 && value == 0) {
                return -5;
            }
            if (id == TOPIC_ALIAS && value == 0) {
                return -6;
            }
        }
        return blockEnd;
    }

    /** The violation a negative answer of {@link #properties} stands for. */
    static Violation violation(int answer) {
        return PROPERTY_VIOLATIONS[-answer - 1];
    }

    /** Whether the (valid) property block at {@code p} holds property {@code id}. */
    private static boolean hasProperty(ByteBuf b, int p, int id) {
        long lengthAndSize = variableInteger(b, p, Integer.MAX_VALUE);
        int q = p + (int) (lengthAndSize >>> 32);
        int blockEnd = q + (int) lengthAndSize;
        while (q < blockEnd) {
            int at = b.getUnsignedByte(q++);
            if (at == id) {
                return true;
            }
            q = valueEnd(b, q, at, blockEnd);
        }
        return false;
    }

    /** The index after the value of property {@code id} at {@code q}, or -1 when it runs past {@code end}. */
    private static int valueEnd(ByteBuf b, int q, int id, int end) {
        switch (KIND[id]) {
            case BYTE:
                return q + 1 <= end ? q + 1 : -1;
            case TWO:
                return q + 2 <= end ? q + 2 : -1;
            case FOUR:
                return q + 4 <= end ? q + 4 : -1;
            case VARIABLE: {
                long v = variableInteger(b, q, end);
                return v < 0 ? -1 : q + (int) (v >>> 32);
            }
            case PREFIXED:
                return PacketRules.fieldEnd(b, q, end);
            default:
                return PacketRules.fieldEnd(b, PacketRules.fieldEnd(b, q, end), end);
        }
    }

    /** The numeric value of property {@code id} (whole) at {@code q}; 1 for text and binary, which are not bounded. */
    private static long value(ByteBuf b, int q, int id) {
        switch (KIND[id]) {
            case BYTE:
                return b.getUnsignedByte(q);
            case TWO:
                return b.getUnsignedShort(q);
            case FOUR:
                return b.getUnsignedInt(q);
            case VARIABLE:
                return (int) variableInteger(b, q, Integer.MAX_VALUE);
            default:
                return 1;
        }
    }

    /**
     * The variable byte integer at {@code p}: its value in the low 32 bits and its size in bytes in the high ones,
     * or -1 when it runs past {@code end} or past four bytes.
     */
    private static long variableInteger(ByteBuf b, int p, int end) {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            if (p + i >= end) {
                return -1;
            }
            int digit = b.getUnsignedByte(p + i);
            value |= (digit & 0x7F) << (7 * i);
            if ((digit & 0x80) == 0) {
                return ((long) (i + 1) << 32) | value;
            }
        }
        return -1;
    }

    private static long mask(int... ids) {
        long m = 0;
        for (int id : ids) {
            m |= 1L << id;
        }
        return m;
    }

    private static boolean[] codes(int... values) {
        boolean[] allowed = new boolean[256];
        for (int v : values) {
            allowed[v] = true;
        }
        return allowed;
    }
}
