package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttProperties.BinaryProperty;
import io.netty.handler.codec.mqtt.MqttProperties.IntegerProperty;
import io.netty.handler.codec.mqtt.MqttProperties.StringProperty;
import io.netty.handler.codec.mqtt.MqttProperties.UserProperty;

/**
 * MQTT 5.0 property blocks (section 2.2.2): a block must stay inside its packet and be filled exactly by well-formed
 * properties the packet type carries, none but user properties repeated, with the values the spec bounds in bounds.
 * Read and built in the same walk. Stateless.
 */
final class PropertiesDecoding {
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

    static final int TOPIC_ALIAS = 0x23;
    private static final int USER_PROPERTY = 0x26;

    /** How a property's value is laid out, by identifier; 0: no such property. */
    private static final byte[] KIND = new byte[0x2B];
    private static final byte BYTE = 1;
    private static final byte TWO = 2;
    private static final byte FOUR = 4;
    private static final byte VARIABLE = 5;
    private static final byte STRING = 6;
    private static final byte BINARY = 7;
    private static final byte PAIR = 8;

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
        for (int id : new int[] {0x03, 0x08, 0x12, 0x15, 0x1A, 0x1C, 0x1F}) {
            KIND[id] = STRING;
        }
        KIND[0x09] = BINARY;
        KIND[0x16] = BINARY;
        KIND[USER_PROPERTY] = PAIR;
    }

    /** Flags that must be 0 or 1: payload format indicator, request problem / response information. */
    private static final long FLAGS = mask(0x01, 0x17, 0x19);
    /** Values that must not be 0: subscription identifier, receive maximum, maximum packet size. */
    private static final long NON_ZERO = mask(0x0B, 0x21, 0x27);

    private PropertiesDecoding() {
    }

    /**
     * Reads the property block at {@code p} (a variable byte integer length, then the properties), which must end by
     * the packet's end, into {@link PacketReader#properties}. Returns the index after the block.
     */
    static int read(PacketReader r, int p, long allowed) {
        ByteBuf b = r.buf;
        if (p < 0 || p >= r.end) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        long lengthAndSize = variableInteger(b, p, r.end);
        if (lengthAndSize < 0) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        int blockStart = p + (int) (lengthAndSize >>> 32);
        int blockEnd = blockStart + (int) lengthAndSize;
        if (blockEnd > r.end || blockEnd < blockStart) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        // the whole block is held to the size limit before any of its properties is decoded
        r.reach(blockEnd);
        MqttProperties properties = new MqttProperties();
        long seen = 0;
        int q = blockStart;
        while (q < blockEnd) {
            int id = b.getUnsignedByte(q++);
            // identifiers are variable byte integers, but every defined one fits in one byte
            if (id >= KIND.length || KIND[id] == 0) {
                throw PacketReader.refuse(Violations.PROPERTY_UNKNOWN);
            }
            if ((allowed & (1L << id)) == 0) {
                throw PacketReader.refuse(Violations.PROPERTY_NOT_ALLOWED);
            }
            if (id != USER_PROPERTY && (seen & (1L << id)) != 0) {
                throw PacketReader.refuse(Violations.PROPERTY_REPEATED);
            }
            seen |= 1L << id;
            q = property(r, properties, id, q, blockEnd);
        }
        r.properties = properties;
        return blockEnd;
    }

    /** Reads the value of property {@code id} at {@code q} into {@code properties}; returns the index after it. */
    private static int property(PacketReader r, MqttProperties properties, int id, int q, int blockEnd) {
        ByteBuf b = r.buf;
        long value;
        int next;
        switch (KIND[id]) {
            case BYTE:
                next = q + 1;
                value = next <= blockEnd ? b.getUnsignedByte(q) : -1;
                break;
            case TWO:
                next = q + 2;
                value = next <= blockEnd ? b.getUnsignedShort(q) : -1;
                break;
            case FOUR:
                next = q + 4;
                value = next <= blockEnd ? b.getUnsignedInt(q) : -1;
                break;
            case VARIABLE: {
                long v = variableInteger(b, q, blockEnd);
                next = v < 0 ? blockEnd + 1 : q + (int) (v >>> 32);
                value = (int) v;
                break;
            }
            default:
                return textOrBinary(r, properties, id, q, blockEnd);
        }
        if (next > blockEnd) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        if ((FLAGS & (1L << id)) != 0 && value > 1 || (NON_ZERO & (1L << id)) != 0 && value == 0) {
            throw PacketReader.refuse(Violations.PROPERTY_VALUE);
        }
        if (id == TOPIC_ALIAS && value == 0) {
            throw PacketReader.refuse(Violations.TOPIC_ALIAS_ZERO);
        }
        // added even after a refused content: whether a topic alias stands for an empty topic is a layout rule;
        // four-byte values as Netty's int (the unsigned value's bits)
        properties.add(new IntegerProperty(id, (int) value));
        return next;
    }

    private static int textOrBinary(PacketReader r, MqttProperties properties, int id, int q, int blockEnd) {
        int next = fieldEnd(r, q, blockEnd);
        if (KIND[id] == PAIR) {
            int valueEnd = fieldEnd(r, next, blockEnd);
            String key = r.string(q, next);
            String value = r.string(next, valueEnd);
            if (r.decoding()) {
                properties.add(new UserProperty(key, value));
            }
            return valueEnd;
        }
        if (KIND[id] == STRING) {
            String value = r.string(q, next);
            if (r.decoding()) {
                properties.add(new StringProperty(id, value));
            }
        } else {
            byte[] value = r.bytes(q, next);
            if (r.decoding()) {
                properties.add(new BinaryProperty(id, value));
            }
        }
        return next;
    }

    /** The index after the length-prefixed field at {@code q} inside a block ending at {@code blockEnd}. */
    private static int fieldEnd(PacketReader r, int q, int blockEnd) {
        if (q + 2 > blockEnd) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        int after = q + 2 + r.buf.getUnsignedShort(q);
        if (after > blockEnd) {
            throw PacketReader.refuse(Violations.PROPERTY_LENGTH);
        }
        return after;
    }

    /**
     * The variable byte integer at {@code p}: its value in the low 32 bits and its size in bytes in the high ones,
     * or -1 when it runs past {@code end} or past four bytes.
     */
    static long variableInteger(ByteBuf b, int p, int end) {
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
}
