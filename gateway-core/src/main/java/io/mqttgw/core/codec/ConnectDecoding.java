package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;

/**
 * CONNECT of MQTT 3.1, 3.1.1 and 5.0: the flag combinations the spec forbids, every field inside the packet and the
 * fields filling it exactly, MQTT 5.0 properties of the connection and of the will, a will topic that is not empty,
 * and, for 3.1, a client id of 1 to the configured number of characters. Another protocol name or level is refused
 * with the CONNACK the spec asks for. Stateless.
 */
final class ConnectDecoding {
    private static final byte[] MQTT = "MQTT".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MQISDP = "MQIsdp".getBytes(StandardCharsets.US_ASCII);
    /** Netty leaves a longer will topic out (null) rather than refuse it; so does the gateway. */
    private static final int MAX_WILL_TOPIC = 32_767;

    private ConnectDecoding() {
    }

    /**
     * The CONNECT whose body {@code r} reads; {@code connected}: one was accepted on this connection already.
     * Returns null when the content of a field was refused ({@link PacketReader#content}).
     */
    static MqttConnectMessage decode(PacketReader r, MqttFixedHeader fixed, boolean connected, int maxClientIdLength) {
        ByteBuf b = r.buf;
        int start = r.start;
        int end = r.end;
        int nameEnd = r.fieldEnd(start);
        if (nameEnd < 0 || nameEnd >= end) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        int level = b.getUnsignedByte(nameEnd);
        MqttVersion version = level == 5 && nameIs(b, start, nameEnd, MQTT) ? MqttVersion.MQTT_5
                : level == 4 && nameIs(b, start, nameEnd, MQTT) ? MqttVersion.MQTT_3_1_1
                : level == 3 && nameIs(b, start, nameEnd, MQISDP) ? MqttVersion.MQTT_3_1 : null;
        if (connected) {
            checkLayout(r, start, nameEnd, version);
            throw PacketReader.refuse(Violations.SECOND_CONNECT);
        }
        if (version == null) {
            r.string(start, nameEnd);
            r.reach(nameEnd + 1);
            r.refuseContent(Violations.UNSUPPORTED_PROTOCOL);
            return null;
        }
        return read(r, fixed, nameEnd + 1, version, maxClientIdLength);
    }

    /** A second CONNECT is refused as such only if its layout is sound, as a first one would be. */
    private static void checkLayout(PacketReader r, int start, int nameEnd, MqttVersion version) {
        if (version != null) {
            // the content of its fields is not looked at
            r.refuseContent(Violations.SECOND_CONNECT);
            read(r, null, nameEnd + 1, version, Integer.MAX_VALUE);
        }
    }

    private static MqttConnectMessage read(PacketReader r, MqttFixedHeader fixed, int p, MqttVersion version,
            int maxClientIdLength) {
        ByteBuf b = r.buf;
        int end = r.end;
        if (p + 3 > end) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        int flags = b.getUnsignedByte(p);
        int keepAlive = b.getUnsignedShort(p + 1);
        p += 3;
        boolean user = (flags & 0x80) != 0;
        boolean password = (flags & 0x40) != 0;
        boolean willRetain = (flags & 0x20) != 0;
        int willQos = (flags >> 3) & 0x03;
        boolean will = (flags & 0x04) != 0;
        boolean v5 = version == MqttVersion.MQTT_5;
        checkFlags(flags, user, password, willRetain, willQos, will, v5);
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (v5) {
            p = PropertiesDecoding.read(r, p, PropertiesDecoding.CONNECT);
            properties = r.properties;
        }
        int idEnd = r.fieldEnd(p);
        if (idEnd < 0) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        String clientId = r.string(p, idEnd);
        if (clientId != null && version == MqttVersion.MQTT_3_1
                && (clientId.isEmpty() || clientId.length() > maxClientIdLength)) {
            r.refuseContent(Violations.CLIENT_ID_REJECTED);
        }
        p = idEnd;
        MqttProperties willProperties = MqttProperties.NO_PROPERTIES;
        String willTopic = null;
        byte[] willMessage = null;
        if (will) {
            if (v5) {
                p = PropertiesDecoding.read(r, p, PropertiesDecoding.WILL);
                willProperties = r.properties;
            }
            int topicEnd = field(r, p);
            if (topicEnd == p + 2) {
                throw PacketReader.refuse(Violations.EMPTY_TOPIC);
            }
            if (topicEnd - p - 2 <= MAX_WILL_TOPIC) {
                willTopic = r.string(p, topicEnd);
            } else {
                r.reach(topicEnd);
            }
            p = field(r, topicEnd);
            willMessage = r.bytes(topicEnd, p);
        }
        String userName = null;
        if (user) {
            int userEnd = field(r, p);
            userName = r.string(p, userEnd);
            p = userEnd;
        }
        byte[] passwordBytes = null;
        if (password) {
            int passwordEnd = field(r, p);
            passwordBytes = r.bytes(p, passwordEnd);
            p = passwordEnd;
        }
        if (p != end) {
            throw PacketReader.refuse(Violations.BYTES_AFTER_FIELDS);
        }
        if (!r.decoding()) {
            return null;
        }
        return new MqttConnectMessage(fixed,
                new MqttConnectVariableHeader(version.protocolName(), version.protocolLevel(), user, password,
                        willRetain, willQos, will, (flags & 0x02) != 0, keepAlive, properties),
                new MqttConnectPayload(clientId, willProperties, willTopic, willMessage, userName, passwordBytes));
    }

    private static void checkFlags(int flags, boolean user, boolean password, boolean willRetain, int willQos,
            boolean will, boolean v5) {
        if ((flags & 0x01) != 0) {
            throw PacketReader.refuse(Violations.RESERVED_CONNECT_FLAG);
        }
        if (willQos == 3) {
            throw PacketReader.refuse(Violations.WILL_QOS_3);
        }
        if (!will && willQos != 0) {
            throw PacketReader.refuse(Violations.WILL_QOS_WITHOUT_WILL);
        }
        if (!will && willRetain) {
            throw PacketReader.refuse(Violations.WILL_RETAIN_WITHOUT_WILL);
        }
        if (password && !user && !v5) {
            // MQTT 5.0 allows a password without a user name
            throw PacketReader.refuse(Violations.PASSWORD_WITHOUT_USER);
        }
    }

    private static int field(PacketReader r, int p) {
        int after = r.fieldEnd(p);
        if (after < 0) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        return after;
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
