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
    private final ByteBuf payload;

    private DownlinkPublish(DownlinkMessage message, ByteBufAllocator alloc) {
        this.message = message;
        this.payload = alloc.buffer(message.payload().length).writeBytes(message.payload()).asReadOnly();
        byte[] topic = message.topic().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int qos = 0; qos <= message.qos(); qos++) {
            int remaining = 2 + topic.length + (qos > 0 ? 2 : 0) + message.payload().length;
            ByteBuf prefix = alloc.buffer(5 + 2 + topic.length);
            prefix.writeByte(PUBLISH | qos << 1 | (message.retain() ? 1 : 0));
            writeRemainingLength(prefix, remaining);
            prefix.writeShort(topic.length).writeBytes(topic);
            prefixes[qos] = prefix.asReadOnly();
        }
    }

    static DownlinkPublish encode(DownlinkMessage message, ByteBufAllocator alloc) {
        return new DownlinkPublish(message, alloc);
    }

    DownlinkMessage message() {
        return message;
    }

    /** The packet for one receiver: shared prefix, its packet id (QoS 1/2), shared payload. */
    ByteBuf packet(ByteBufAllocator alloc, int qos, int packetId, boolean dup) {
        CompositeByteBuf packet = alloc.compositeBuffer(3);
        ByteBuf prefix = prefixes[qos].retainedDuplicate();
        if (dup) {
            // a retransmission: its own copy of the prefix with the DUP bit (rare, so the copy does not matter)
            ByteBuf copy = alloc.buffer(prefix.readableBytes()).writeBytes(prefix);
            prefix.release();
            copy.setByte(0, copy.getByte(0) | DUP);
            prefix = copy;
        }
        packet.addComponent(true, prefix);
        if (qos > 0) {
            packet.addComponent(true, alloc.buffer(2, 2).writeShort(packetId));
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
        for (ByteBuf prefix : prefixes) {
            if (prefix != null) {
                prefix.release();
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
