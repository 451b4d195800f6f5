package io.mqttgw.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.mqtt.MqttMessageFactory;
import java.util.List;

/**
 * Cuts the byte stream into whole MQTT packets for Netty's decoder and lets through only packets that pass
 * {@link PacketRules}, so the decoder never reads a field past its packet (it would wait for, or swallow, the next
 * packet's bytes) nor indexes an array or enum with a value the spec forbids. A packet over
 * {@code mqtt.max-packet-size} is refused as soon as its remaining length is read, before its body is buffered. A
 * refused packet becomes the same invalid-message value the decoder emits (cause {@link InvalidPacketException}),
 * passed through the decoder to {@link InvalidPacketHandler}, the one place that turns it into a counted close;
 * every later byte is discarded. Once a level-5 CONNECT passed, the MQTT 5.0 layouts apply (the connection's protocol
 * is its CONNECT's, as for the decoder). As a safety net for what the rules leave to the decoder, a frame the decoder
 * did not read to its end is refused too. One instance per connection; event loop only.
 */
public final class PacketFramer extends ByteToMessageDecoder {
    private static final PacketRules.Violation REMAINING_LENGTH = new PacketRules.Violation(
            DisconnectReason.MALFORMED_PACKET, "MQTT-2.2.3: remaining length longer than four bytes");
    private static final PacketRules.Violation TOO_LARGE = new PacketRules.Violation(
            DisconnectReason.PACKET_TOO_LARGE, "remaining length over mqtt.max-packet-size");
    private static final PacketRules.Violation SECOND_CONNECT = new PacketRules.Violation(
            DisconnectReason.SECOND_CONNECT, "MQTT-3.1.0-2: a second CONNECT");
    private static final PacketRules.Violation NOT_READ_TO_END = new PacketRules.Violation(
            DisconnectReason.MALFORMED_PACKET, "MQTT-2.2.3: fields do not fill the remaining length");

    /** A packet was refused: every later byte is discarded. */
    private static final int REFUSED = 1;
    /** The CONNECT passed; another one never reaches the decoder (it would switch the codec's protocol). */
    private static final int CONNECTED = 2;
    /** That CONNECT was level 5: later packets are checked with the MQTT 5.0 layouts. */
    private static final int MQTT5 = 4;

    private final int maxPacketSize;
    /** {@link #REFUSED}, {@link #CONNECTED}, {@link #MQTT5}: one byte, so 3.1.1 connections pay nothing for 5.0. */
    private byte flags;
    /** The last frame passed on, retained once more until it is seen whether the decoder read it to its end. */
    private ByteBuf lastFrame;

    public PacketFramer(int maxPacketSize) {
        this.maxPacketSize = maxPacketSize;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        super.channelRead(ctx, msg);
        if (!is(REFUSED) && !lastFrameReadToEnd()) {
            ctx.fireChannelRead(refuse(NOT_READ_TO_END));
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!is(REFUSED) && !lastFrameReadToEnd()) {
            out.add(refuse(NOT_READ_TO_END));
        }
        if (is(REFUSED)) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int readable = in.readableBytes();
        int start = in.readerIndex();
        int first = in.getUnsignedByte(start);
        PacketRules.Violation violation = PacketRules.checkFixedHeader(first, is(MQTT5));
        if (violation != null) {
            out.add(refuse(violation));
            in.skipBytes(readable);
            return;
        }
        int remaining = 0;
        int headerLength = 1;
        for (int shift = 0; ; shift += 7) {
            if (headerLength >= readable) {
                return;
            }
            int digit = in.getUnsignedByte(start + headerLength++);
            remaining |= (digit & 0x7F) << shift;
            if ((digit & 0x80) == 0) {
                break;
            }
            if (headerLength == 5) {
                out.add(refuse(REMAINING_LENGTH));
                in.skipBytes(readable);
                return;
            }
        }
        if (remaining > maxPacketSize) {
            out.add(refuse(TOO_LARGE));
            in.skipBytes(readable);
            return;
        }
        if (readable < headerLength + remaining) {
            return;
        }
        ByteBuf body = in.slice(start + headerLength, remaining);
        violation = PacketRules.checkBody(first, body, is(MQTT5));
        if (violation != null) {
            out.add(refuse(violation));
            in.skipBytes(readable);
            return;
        }
        if ((first >> 4) == 1) {
            if (is(CONNECTED)) {
                out.add(refuse(SECOND_CONNECT));
                in.skipBytes(readable);
                return;
            }
            flags |= PacketRules.isMqtt5Connect(body) ? CONNECTED | MQTT5 : CONNECTED;
        }
        ByteBuf frame = in.readRetainedSlice(headerLength + remaining);
        if (!frame.isContiguous()) {
            // the decoder would copy a non-contiguous frame into its own buffer, hiding whether it read it to its end
            ByteBuf copy = ctx.alloc().buffer(frame.readableBytes());
            copy.writeBytes(frame);
            frame.release();
            frame = copy;
        }
        lastFrame = frame.retain();
        out.add(frame);
    }

    /** True unless the decoder kept bytes of the last frame, waiting for more that would belong to the next packet. */
    private boolean lastFrameReadToEnd() {
        ByteBuf frame = lastFrame;
        if (frame == null) {
            return true;
        }
        lastFrame = null;
        boolean readToEnd = !frame.isReadable();
        frame.release();
        return readToEnd;
    }

    private boolean is(int flag) {
        return (flags & flag) != 0;
    }

    private Object refuse(PacketRules.Violation violation) {
        flags |= REFUSED;
        return MqttMessageFactory.newInvalidMessage(new InvalidPacketException(violation));
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (lastFrame != null) {
            lastFrame.release();
            lastFrame = null;
        }
    }
}
