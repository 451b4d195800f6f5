package io.mqttgw.core.protocol;

import io.mqttgw.core.spi.DownlinkMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

/**
 * One downlink PUBLISH encoded once and shared by every receiver: a prefix (fixed header and topic) per QoS and
 * the payload, both read-only; a receiver's packet is a composite of shared slices and its own two-byte packet id,
 * so a broadcast to a million devices encodes the message once. Reference counted: each send and each
 * retransmission keeps it alive; the encoder's packets are released by the channel once written.
 */
final class DownlinkPublish extends AbstractReferenceCounted {
    private static final int PUBLISH = 0x30;
    private static final int DUP = 0x08;

    private final DownlinkMessage message;
    private final ByteBuf[] prefixes = new ByteBuf[3];
    /** The prefixes for MQTT 5.0 receivers, by QoS; null until one needs it (a 3.1.1 fleet never pays for them). */
    private ByteBuf[] prefixes5;
    private final byte[] topic;
    private final ByteBuf payload;

    private DownlinkPublish(DownlinkMessage message, ByteBufAllocator alloc) {
        this.message = message;
        this.payload = alloc.buffer(message.payload().length).writeBytes(message.payload()).asReadOnly();
        this.topic = message.topic().getBytes(java.nio.charset.StandardCharsets.UTF_8);
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

    static DownlinkPublish encode(DownlinkMessage message, ByteBufAllocator alloc) {
        return new DownlinkPublish(message, alloc);
    }

    DownlinkMessage message() {
        return message;
    }

    /** The packet for one MQTT 3.1.1 receiver. */
    ByteBuf packet(ByteBufAllocator alloc, int qos, int packetId, boolean dup) {
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
