package io.mqttgw.core.codec;

import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnAckVariableHeader;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubAckMessage;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubAckPayload;
import java.util.ArrayList;
import java.util.List;

/**
 * The short packets: PUBACK, PUBREC, PUBREL, PUBCOMP, PINGREQ, DISCONNECT, AUTH, with their fixed lengths or the
 * optional 5.0 reason code and properties, and the packets only a server sends, which a 3.1.1 device's session
 * refuses as unexpected and a 5.0 connection refuses here. Stateless.
 */
final class ReplyDecoding {
    private static final boolean[] PUBACK_CODES = codes(0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99);
    private static final boolean[] PUBREL_CODES = codes(0x00, 0x92);
    private static final boolean[] DISCONNECT_CODES = codes(0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x87, 0x89, 0x8B,
            0x8D, 0x8E, 0x8F, 0x90, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F, 0xA0,
            0xA1, 0xA2);
    private static final boolean[] AUTH_CODES = codes(0x00, 0x18, 0x19);

    private ReplyDecoding() {
    }

    /** PUBACK, PUBREC, PUBREL or PUBCOMP; null when the content of a field was refused. */
    static MqttMessage acknowledgement(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        int length = r.end - r.start;
        if (length < 2 || !mqtt5 && length != 2) {
            throw PacketReader.refuse(Violations.WRONG_LENGTH);
        }
        int id = SubscribeDecoding.packetId(r);
        byte reason = 0;
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (length > 2) {
            int type = fixed.messageType().value();
            reason = reasonAndProperties(r, r.start + 2, type <= 5 ? PUBACK_CODES : PUBREL_CODES,
                    PropertiesDecoding.ACK);
            properties = length > 3 ? r.properties : MqttProperties.NO_PROPERTIES;
        }
        if (!r.decoding()) {
            return null;
        }
        MqttPubReplyMessageVariableHeader header = new MqttPubReplyMessageVariableHeader(id, reason, properties);
        return fixed.messageType() == MqttMessageType.PUBACK ? new MqttPubAckMessage(fixed, header)
                : new MqttMessage(fixed, header);
    }

    /** DISCONNECT, or (5.0 only) AUTH; null when the content of a field was refused. */
    static MqttMessage disconnectOrAuth(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        int length = r.end - r.start;
        byte reason = 0;
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (length > 0) {
            boolean auth = fixed.messageType() == MqttMessageType.AUTH;
            // AUTH leaves out reason code and properties only together (MQTT 5.0 section 3.15.2.1)
            if (!mqtt5 || auth && length == 1) {
                throw PacketReader.refuse(Violations.WRONG_LENGTH);
            }
            reason = reasonAndProperties(r, r.start, auth ? AUTH_CODES : DISCONNECT_CODES,
                    auth ? PropertiesDecoding.AUTH : PropertiesDecoding.DISCONNECT);
            properties = length > 1 ? r.properties : MqttProperties.NO_PROPERTIES;
        }
        if (!r.decoding()) {
            return null;
        }
        return new MqttMessage(fixed, new MqttReasonCodeAndPropertiesVariableHeader(reason, properties));
    }

    /** PINGREQ: nothing after the fixed header. */
    static MqttMessage ping(PacketReader r) {
        if (r.end != r.start) {
            throw PacketReader.refuse(Violations.WRONG_LENGTH);
        }
        // immutable: one message stands for every PINGREQ
        return MqttMessage.PINGREQ;
    }

    /**
     * CONNACK, SUBACK, UNSUBACK or PINGRESP from a device: refused on a 5.0 connection; on a 3.1.1 one decoded for
     * the session to refuse as unexpected. Null when the content of a field was refused.
     */
    static MqttMessage serverPacket(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        if (mqtt5) {
            throw PacketReader.refuse(Violations.SERVER_PACKET);
        }
        int length = r.end - r.start;
        switch (fixed.messageType()) {
            case CONNACK: {
                if (length != 2) {
                    throw PacketReader.refuse(Violations.WRONG_LENGTH);
                }
                r.reach(r.end);
                MqttConnectReturnCode code;
                try {
                    code = MqttConnectReturnCode.valueOf(r.buf.getByte(r.start + 1));
                } catch (IllegalArgumentException unknown) {
                    r.refuseContent(Violations.UNKNOWN_RETURN_CODE);
                    return null;
                }
                boolean sessionPresent = (r.buf.getByte(r.start) & 0x01) != 0;
                return r.decoding() ? new MqttConnAckMessage(fixed,
                        new MqttConnAckVariableHeader(code, sessionPresent, MqttProperties.NO_PROPERTIES)) : null;
            }
            case SUBACK:
                return subAck(r, fixed, length);
            case UNSUBACK: {
                if (length != 2) {
                    throw PacketReader.refuse(Violations.WRONG_LENGTH);
                }
                int id = SubscribeDecoding.packetId(r);
                return r.decoding() ? new MqttUnsubAckMessage(fixed,
                        new MqttMessageIdAndPropertiesVariableHeader(id, MqttProperties.NO_PROPERTIES),
                        new MqttUnsubAckPayload(new ArrayList<Short>(0))) : null;
            }
            default:
                // PINGRESP
                if (length != 0) {
                    throw PacketReader.refuse(Violations.WRONG_LENGTH);
                }
                return new MqttMessage(fixed);
        }
    }

    private static MqttMessage subAck(PacketReader r, MqttFixedHeader fixed, int length) {
        if (length < 3) {
            throw PacketReader.refuse(Violations.WRONG_LENGTH);
        }
        r.reach(r.start + 2);
        int id = r.buf.getUnsignedShort(r.start);
        if (id == 0) {
            r.refuseContent(Violations.SERVER_PACKET_ID_ZERO);
        }
        r.reach(r.end);
        if (!r.decoding()) {
            return null;
        }
        List<Integer> codes = new ArrayList<>(length - 2);
        for (int i = r.start + 2; i < r.end; i++) {
            codes.add(r.buf.getUnsignedByte(i) & 0xFF);
        }
        MqttSubAckPayload payload;
        try {
            payload = new MqttSubAckPayload(codes);
        } catch (IllegalArgumentException unknown) {
            r.refuseContent(Violations.UNKNOWN_RETURN_CODE);
            return null;
        }
        return new MqttSubAckMessage(fixed,
                new MqttMessageIdAndPropertiesVariableHeader(id, MqttProperties.NO_PROPERTIES), payload);
    }

    /** A reason code, then (unless the packet ends there) a property block that must end the packet. */
    private static byte reasonAndProperties(PacketReader r, int p, boolean[] codes, long allowed) {
        int reason = r.buf.getUnsignedByte(p);
        if (!codes[reason]) {
            throw PacketReader.refuse(Violations.REASON_CODE);
        }
        r.reach(p + 1);
        p++;
        if (p != r.end && PropertiesDecoding.read(r, p, allowed) != r.end) {
            throw PacketReader.refuse(Violations.BYTES_AFTER_FIELDS);
        }
        return (byte) reason;
    }

    private static boolean[] codes(int... values) {
        boolean[] allowed = new boolean[256];
        for (int v : values) {
            allowed[v] = true;
        }
        return allowed;
    }
}
