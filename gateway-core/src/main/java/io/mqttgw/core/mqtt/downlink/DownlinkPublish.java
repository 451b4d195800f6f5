package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.codec.PublishProperties;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.topic.SubscriptionMatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import java.nio.charset.StandardCharsets;

/**
 * One downlink PUBLISH encoded once and shared by every receiver: a prefix (fixed header and topic) per QoS and
 * the payload, both read-only; a receiver's packet is a composite of shared slices and its own two-byte packet id,
 * so a broadcast to a million devices encodes the message once. Reference counted: each send and each
 * retransmission keeps it alive; the encoder's packets are released by the channel once written.
 *
 * <p>An MQTT 5.0 receiver's PUBLISH carries properties of its own (the remaining message expiry interval at the time
 * it is sent, the identifiers of its matching subscriptions), so it is built per receiver by {@link #packet5} as a
 * PUBLISH message for the pipeline's encoder, around the same shared payload; the prefixes serve 3.1.1 receivers.
 */
public final class DownlinkPublish extends AbstractReferenceCounted {
    private static final int PUBLISH = 0x30;
    private static final int DUP = 0x08;

    private final DownlinkMessage message;
    private final ByteBuf[] prefixes = new ByteBuf[3];
    /** The prefixes for MQTT 5.0 receivers, by QoS; null until one needs it (a 3.1.1 fleet never pays for them). */
    private ByteBuf[] prefixes5;
    private final byte[] topic;
    private final ByteBuf payload;
    private final boolean publishedRetain;

    private DownlinkPublish(DownlinkMessage message, ByteBufAllocator alloc, boolean publishedRetain) {
        this.message = message;
        this.publishedRetain = publishedRetain;
        this.payload = alloc.buffer(message.payload().length).writeBytes(message.payload()).asReadOnly();
        this.topic = message.topic().getBytes(StandardCharsets.UTF_8);
        for (int qos = 0; qos <= message.qos(); qos++) {
            prefixes[qos] = prefix(alloc, qos, 0);
        }
    }

    /** Fixed header and topic, read-only; {@code propertyBytes} more bytes follow the packet id. */
    private ByteBuf prefix(ByteBufAllocator alloc, int qos, int propertyBytes) {
        int remaining = 2 + topic.length + (qos > 0 ? 2 : 0) + propertyBytes + message.payload().length;
        ByteBuf prefix = alloc.buffer(5 + 2 + topic.length);
        prefix.writeByte(PUBLISH | qos << 1 | (message.retain() ? 1 : 0));
        writeRemainingLength(prefix, remaining);
        prefix.writeShort(topic.length).writeBytes(topic);
        return prefix.asReadOnly();
    }

    /**
     * The 5.0 prefix of {@code qos}. A shared broadcast encoding is used from several event loops: the lazily built
     * array is published under this object's monitor (taken only by 5.0 receivers, once per QoS in practice).
     */
    private synchronized ByteBuf prefix5(int qos) {
        if (prefixes5 == null) {
            prefixes5 = new ByteBuf[3];
        }
        if (prefixes5[qos] == null) {
            prefixes5[qos] = prefix(ByteBufAllocator.DEFAULT, qos, 1);
        }
        return prefixes5[qos];
    }

    public static DownlinkPublish encode(DownlinkMessage message, ByteBufAllocator alloc) {
        return new DownlinkPublish(message, alloc, message.retain());
    }

    /**
     * @param publishedRetain the retain flag the message was published with, before the live copy had it cleared
     *                        (MQTT-3.3.1-9): what an MQTT 5.0 subscription with retain as published gets
     */
    public static DownlinkPublish encode(DownlinkMessage message, ByteBufAllocator alloc, boolean publishedRetain) {
        return new DownlinkPublish(message, alloc, publishedRetain);
    }

    DownlinkMessage message() {
        return message;
    }

    /** The packet for one MQTT 3.1.1 receiver. */
    public ByteBuf packet(ByteBufAllocator alloc, int qos, int packetId, boolean dup) {
        return packet(alloc, qos, packetId, dup, false);
    }

    /**
     * The packet for one receiver: shared prefix, its packet id (QoS 1/2), shared payload. An MQTT 5.0 receiver's
     * packet also has a property block (empty here) after the packet id, so its prefix (one more byte of remaining
     * length) is built the first time a 5.0 receiver needs it.
     */
    ByteBuf packet(ByteBufAllocator alloc, int qos, int packetId, boolean dup, boolean properties) {
        CompositeByteBuf packet = alloc.compositeBuffer(3);
        ByteBuf prefix = (properties ? prefix5(qos) : prefixes[qos]).retainedDuplicate();
        if (dup) {
            // a retransmission: its own copy of the prefix with the DUP bit (rare, so the copy does not matter)
            ByteBuf copy = alloc.buffer(prefix.readableBytes()).writeBytes(prefix);
            prefix.release();
            copy.setByte(0, copy.getByte(0) | DUP);
            prefix = copy;
        }
        packet.addComponent(true, prefix);
        if (qos > 0 || properties) {
            ByteBuf header = alloc.buffer(3, 3);
            if (qos > 0) {
                header.writeShort(packetId);
            }
            if (properties) {
                header.writeByte(0);
            }
            packet.addComponent(true, header);
        }
        packet.addComponent(true, payload.retainedDuplicate());
        return packet;
    }

    /**
     * The PUBLISH for one MQTT 5.0 receiver, for the pipeline's encoder: the message's properties
     * ({@link PublishProperties#write}), the message expiry interval left at {@code nowMillis} (rounded up, so it never
     * reads 0 before the message expired), and {@code match}'s subscription identifiers; retain as published keeps the
     * flag the message was published with. Holds its own reference to the shared payload.
     */
    MqttPublishMessage packet5(int qos, int packetId, boolean dup, SubscriptionMatch match, long nowMillis) {
        boolean retain = message.retain() || (match != null && match.retainAsPublished() && publishedRetain);
        return new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, dup, MqttQoS.valueOf(qos), retain,
                0), new MqttPublishVariableHeader(message.topic(), qos > 0 ? packetId : -1,
                properties5(match, nowMillis)), payload.retainedDuplicate());
    }

    /**
     * Whether an MQTT 5.0 receiver with {@code match} can take the shared encoding with an empty property block: the
     * message has no properties nor expiry, the match no identifiers, and the retain flag is the shared one.
     */
    boolean sharedFor5(SubscriptionMatch match) {
        return message.properties().isEmpty() && message.expiresAtMillis() == 0
                && (match == null || (match.identifiers().length == 0
                        && (!match.retainAsPublished() || publishedRetain == message.retain())));
    }

    /** The size in bytes of {@link #packet5}'s packet once encoded, to hold it to the device's maximum packet size. */
    int size5(int qos, SubscriptionMatch match, long nowMillis) {
        int properties = PublishProperties.encodedLength(properties5(match, nowMillis));
        int remaining = 2 + topic.length + (qos > 0 ? 2 : 0) + PublishProperties.variableByteIntegerLength(properties)
                + properties + payload.readableBytes();
        return 1 + PublishProperties.variableByteIntegerLength(remaining) + remaining;
    }

    private MqttProperties properties5(SubscriptionMatch match, long nowMillis) {
        boolean identifiers = match != null && match.identifiers().length > 0;
        if (message.properties().isEmpty() && message.expiresAtMillis() == 0 && !identifiers) {
            return MqttProperties.NO_PROPERTIES;
        }
        MqttProperties properties = new MqttProperties();
        PublishProperties.write(message.properties(), properties);
        if (message.expiresAtMillis() > 0) {
            long left = Math.max(1, (message.expiresAtMillis() - nowMillis + 999) / 1000);
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL,
                    (int) Math.min(Integer.MAX_VALUE, left)));
        }
        if (identifiers) {
            for (int id : match.identifiers()) {
                properties.add(new MqttProperties.IntegerProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER, id));
            }
        }
        return properties;
    }

    private static void writeRemainingLength(ByteBuf out, int length) {
        do {
            int digit = length % 128;
            length /= 128;
            out.writeByte(length > 0 ? digit | 0x80 : digit);
        } while (length > 0);
    }

    @Override
    protected void deallocate() {
        payload.release();
        release(prefixes);
        synchronized (this) {
            release(prefixes5);
        }
    }

    private static void release(ByteBuf[] buffers) {
        if (buffers != null) {
            for (ByteBuf b : buffers) {
                if (b != null) {
                    b.release();
                }
            }
        }
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    public String toString() {
        return "DownlinkPublish(" + message.topic() + ", " + ByteBufUtil.hexDump(payload, 0,
                Math.min(16, payload.readableBytes())) + ")";
    }
}
