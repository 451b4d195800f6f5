package io.mqttgw.core.codec;

import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttSubscribePayload;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption.RetainedHandlingPolicy;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribePayload;
import java.util.ArrayList;
import java.util.List;

/**
 * SUBSCRIBE and UNSUBSCRIBE: a packet id other than 0, the 5.0 properties, at least one topic filter, none empty, and
 * for SUBSCRIBE option bytes the protocol defines. Stateless.
 */
final class SubscribeDecoding {
    private SubscribeDecoding() {
    }

    /** The SUBSCRIBE whose body {@code r} reads; null when the content of a field was refused. */
    static MqttSubscribeMessage subscribe(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        int id = packetId(r);
        int p = r.start + 2;
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (mqtt5) {
            p = PropertiesDecoding.read(r, p, PropertiesDecoding.SUBSCRIBE);
            properties = r.properties;
        }
        if (p == r.end) {
            throw PacketReader.refuse(Violations.NO_SUBSCRIPTION);
        }
        List<MqttTopicSubscription> subscriptions = new ArrayList<>(1);
        while (p < r.end) {
            int filterEnd = r.fieldEnd(p);
            if (filterEnd < 0 || filterEnd >= r.end) {
                throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
            }
            if (filterEnd == p + 2) {
                throw PacketReader.refuse(Violations.EMPTY_TOPIC);
            }
            int options = r.buf.getUnsignedByte(filterEnd);
            if (mqtt5 ? (options & 0xC0) != 0 || (options & 0x03) == 0x03 || (options & 0x30) == 0x30
                    : (options & 0xFC) != 0 || (options & 0x03) == 0x03) {
                throw PacketReader.refuse(mqtt5 ? Violations.SUBSCRIBE_OPTIONS_5 : Violations.SUBSCRIBE_OPTIONS);
            }
            String filter = r.string(p, filterEnd);
            r.reach(filterEnd + 1);
            if (r.decoding()) {
                subscriptions.add(new MqttTopicSubscription(filter, new MqttSubscriptionOption(
                        MqttQoS.valueOf(options & 0x03), (options & 0x04) != 0, (options & 0x08) != 0,
                        RetainedHandlingPolicy.valueOf((options & 0x30) >> 4))));
            }
            p = filterEnd + 1;
        }
        if (!r.decoding()) {
            return null;
        }
        return new MqttSubscribeMessage(fixed, new MqttMessageIdAndPropertiesVariableHeader(id, properties),
                new MqttSubscribePayload(subscriptions));
    }

    /** The UNSUBSCRIBE whose body {@code r} reads; null when the content of a field was refused. */
    static MqttUnsubscribeMessage unsubscribe(PacketReader r, MqttFixedHeader fixed, boolean mqtt5) {
        int id = packetId(r);
        int p = r.start + 2;
        MqttProperties properties = MqttProperties.NO_PROPERTIES;
        if (mqtt5) {
            p = PropertiesDecoding.read(r, p, PropertiesDecoding.UNSUBSCRIBE);
            properties = r.properties;
        }
        if (p == r.end) {
            throw PacketReader.refuse(Violations.NO_UNSUBSCRIPTION);
        }
        List<String> filters = new ArrayList<>(1);
        while (p < r.end) {
            int filterEnd = r.fieldEnd(p);
            if (filterEnd < 0) {
                throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
            }
            if (filterEnd == p + 2) {
                throw PacketReader.refuse(Violations.EMPTY_TOPIC);
            }
            String filter = r.string(p, filterEnd);
            if (r.decoding()) {
                filters.add(filter);
            }
            p = filterEnd;
        }
        if (!r.decoding()) {
            return null;
        }
        return new MqttUnsubscribeMessage(fixed, new MqttMessageIdAndPropertiesVariableHeader(id, properties),
                new MqttUnsubscribePayload(filters));
    }

    /** The packet id that opens the body; 0 and a body too short for one are refused. */
    static int packetId(PacketReader r) {
        if (r.start + 2 > r.end) {
            throw PacketReader.refuse(Violations.FIELD_PAST_PACKET);
        }
        int id = r.buf.getUnsignedShort(r.start);
        if (id == 0) {
            throw PacketReader.refuse(Violations.PACKET_ID_ZERO);
        }
        r.reach(r.start + 2);
        return id;
    }
}
