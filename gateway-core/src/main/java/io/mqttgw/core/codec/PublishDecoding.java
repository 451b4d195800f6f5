package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;

/**
 * An uplink PUBLISH: a topic name that is neither empty (unless a 5.0 topic alias stands for it) nor holds a
 * wildcard, a packet id other than 0 at QoS 1 and 2, the 5.0 properties a device may send, and the payload as a
 * retained slice of the bytes received (no copy). Stateless.
 */
final class PublishDecoding {
    private PublishDecoding() {
    }

    /** The PUBLISH whose body {@code r} reads; null when the content of a field was refused. */
    static MqttPublishMessage decode(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        ByteBuf b = r.buf;
        int p = r.fieldEnd(r.start);
        if (p < 0) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        boolean emptyTopic = p == r.start + 2;
        if (emptyTopic && !mqtt5) {
            throw PacketReader.refuse(Violations.EMPTY_TOPIC);
        }
        // U+0000 anywhere in the variable header counts as a bad topic (the reason devices and dashboards already know)
        r.nul = Violations.NUL_IN_PUBLISH_HEADER;
        String topic = r.string(r.start, p);
        if (topic != null && hasWildcard(topic)) {
            r.refuseContent(Violations.TOPIC_WILDCARD);
        }
        int packetId = -1;
        if (fixed.qosLevel().value() > 0) {
            if (p + 2 > r.end) {
                throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
            }
            packetId = b.getUnsignedShort(p);
            if (packetId == 0) {
                throw PacketReader.refuse(Violations.PACKET_ID_ZERO);
            }
            p += 2;
            r.reach(p);
        }
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (mqtt5) {
            p = PropertiesDecoding.read(r, p, PropertiesDecoding.PUBLISH);
            properties = r.properties;
            if (emptyTopic && properties.getProperty(PropertiesDecoding.TOPIC_ALIAS) == null) {
                throw PacketReader.refuse(Violations.EMPTY_TOPIC_WITHOUT_ALIAS);
            }
        }
        r.reach(r.end);
        if (!r.decoding()) {
            return null;
        }
        ByteBuf payload = b.retainedSlice(p, r.end - p);
        return new MqttPublishMessage(fixed, new MqttPublishVariableHeader(topic, packetId, properties), payload);
    }

    private static boolean hasWildcard(String topic) {
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            if (c == '#' || c == '+') {
                return true;
            }
        }
        return false;
    }
}
