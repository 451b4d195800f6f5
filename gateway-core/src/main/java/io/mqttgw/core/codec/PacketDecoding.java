package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageFactory;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * A device's packet, checked and built in one pass over its bytes: Netty's message types, with MQTT 5.0 properties,
 * or an invalid-message value whose cause ({@link InvalidPacketException}) names the {@link Violation}. What is
 * checked: the fixed-header flags each packet type requires, the remaining length and the size limit, every field
 * inside its packet and the fields filling it exactly, the flag combinations, values, properties and reason codes
 * the specification forbids, UTF-8, and wildcards in a topic name. The connection's protocol is its CONNECT's:
 * once a level-5 CONNECT passed, the MQTT 5.0 layouts apply. Stateless; shared by the connections of a listener.
 */
public final class PacketDecoding {
    private final int maxPacketSize;
    private final int maxClientIdLength;

    /**
     * @param maxPacketSize     {@code mqtt.max-packet-size}: the largest packet accepted
     * @param maxClientIdLength the longest client id an MQTT 3.1 device may use
     */
    public PacketDecoding(int maxPacketSize, int maxClientIdLength) {
        this.maxPacketSize = maxPacketSize;
        this.maxClientIdLength = maxClientIdLength;
    }

    public int maxPacketSize() {
        return maxPacketSize;
    }

    /**
     * Checks the first byte alone, so a bad one is refused before the rest of its packet arrives; null if it passes.
     *
     * @param mqtt5 whether a level-5 CONNECT opened the connection
     */
    public static Violation checkFixedHeader(int firstByte, boolean mqtt5) {
        int type = firstByte >> 4;
        int flags = firstByte & 0x0F;
        switch (type) {
            case 0:
                return Violations.RESERVED_TYPE;
            case 15:
                if (!mqtt5) {
                    return Violations.AUTH_BEFORE_5;
                }
                return flags == 0 ? null : Violations.FIXED_FLAGS;
            case 3:
                return (flags & 0x06) == 0x06 ? Violations.PUBLISH_QOS_3 : null;
            case 6, 8, 10:
                return flags == 0x02 ? null : Violations.FIXED_FLAGS;
            default:
                return flags == 0 ? null : Violations.FIXED_FLAGS;
        }
    }

    /**
     * Checks a remaining length as soon as it is read, before the packet's body is held; null if it passes.
     */
    public Violation checkRemainingLength(int remaining) {
        return remaining > maxPacketSize ? Violations.TOO_LARGE : null;
    }

    /** The refusal of a remaining length longer than four bytes. */
    public static Violation remainingLengthTooLong() {
        return Violations.REMAINING_LENGTH;
    }

    /**
     * Decodes the whole packet held in {@code in} at {@code start}: a fixed header of {@code headerLength} bytes that
     * passed {@link #checkFixedHeader}, then {@code remaining} bytes. Leaves the reader index alone; a PUBLISH
     * payload is a retained slice of {@code in}.
     *
     * @param mqtt5     whether a level-5 CONNECT opened the connection
     * @param connected whether a CONNECT was accepted on it already
     * @return the message, or an invalid-message value for a refused packet
     */
    public MqttMessage decode(ByteBuf in, int start, int headerLength, int remaining, boolean mqtt5,
            boolean connected) {
        int first = in.getUnsignedByte(start);
        int bodyStart = start + headerLength;
        PacketReader r = new PacketReader(in, bodyStart, bodyStart + remaining, start + maxPacketSize);
        MqttMessage message;
        try {
            message = decode(r, first, remaining, mqtt5, connected);
        } catch (PacketReader.Refused refused) {
            return invalid(refused.violation);
        }
        return message != null ? message : invalid(r.content);
    }

    /** One of the refusals above as the value passed down the pipeline. */
    public static MqttMessage invalid(Violation violation) {
        return MqttMessageFactory.newInvalidMessage(new InvalidPacketException(violation));
    }

    private MqttMessage decode(PacketReader r, int first, int remaining, boolean mqtt5, boolean connected) {
        int type = first >> 4;
        if (type == 12) {
            return ReplyDecoding.ping(r);
        }
        MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.valueOf(type), (first & 0x08) != 0,
                MqttQoS.valueOf((first >> 1) & 0x03), (first & 0x01) != 0, remaining);
        switch (type) {
            case 1:
                return ConnectDecoding.decode(r, fixed, connected, maxClientIdLength);
            case 3:
                return PublishDecoding.decode(r, fixed, mqtt5);
            case 4, 5, 6, 7:
                return ReplyDecoding.acknowledgement(r, fixed, mqtt5);
            case 8:
                return SubscribeDecoding.subscribe(r, fixed, mqtt5);
            case 10:
                return SubscribeDecoding.unsubscribe(r, fixed, mqtt5);
            case 14, 15:
                return ReplyDecoding.disconnectOrAuth(r, fixed, mqtt5);
            default:
                // CONNACK, SUBACK, UNSUBACK, PINGRESP
                return ReplyDecoding.serverPacket(r, fixed, mqtt5);
        }
    }
}
