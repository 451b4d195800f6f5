package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.AttributeKey;

/**
 * Turns a device's bytes into MQTT messages, one packet at a time and only as fast as the pipeline asks for them.
 *
 * <p>Framing and refusal: whole packets are cut from the bytes; a first byte the spec forbids is refused at once,
 * and a packet over {@code mqtt.max-packet-size} as soon as its remaining length is read, before its body is
 * buffered. A whole packet is checked and decoded in one pass by {@link PacketDecoding}, which never reads a field
 * past its packet. A refused packet becomes an invalid-message value (cause {@link InvalidPacketException}) for
 * {@link InvalidPacketHandler} (or the session handler), the one place that turns it into a counted close; every
 * later byte is discarded. Once a level-5 CONNECT passed, the MQTT 5.0 layouts apply (the connection's protocol is
 * its CONNECT's); a second CONNECT is refused. The CONNECT's protocol is also left where Netty's
 * {@link io.netty.handler.codec.mqtt.MqttEncoder} looks for it, so the packets written back are encoded for it.
 *
 * <p>Flow control: while the channel reads by itself (auto-read) every whole packet held is passed on at once. While
 * reading is paused (auto-read off: uplink back-pressure, an unwritable channel, the CONNECT decision) nothing more is
 * passed on than was asked for: one packet per {@code read()} request, the rest kept as bytes (cheaper than decoded
 * messages, and bounded: the channel is not read meanwhile). A request that no whole packet can answer is passed
 * towards the socket and answered by the next packet that arrives. Turning auto-read back on sends a
 * {@code read()} through here, which passes on everything held. A read's completion is passed on only when no whole
 * packet is held back, and after a {@code read()} request emptied what was held. Held bytes are released when the
 * channel closes or the handler leaves.
 *
 * <p>This is one pipeline entry where a framer, a decoder and a flow-control handler were three. One instance per
 * connection; event loop only.
 */
public final class MqttPacketDecoder extends ChannelDuplexHandler {
    /** Where Netty's encoder reads the connection's protocol version (its own decoder sets it on CONNECT). */
    private static final AttributeKey<MqttVersion> MQTT_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");

    /** A packet was refused: every later byte is discarded. */
    private static final int REFUSED = 1;
    /** The CONNECT passed; another one is refused (the connection keeps its first CONNECT's protocol). */
    private static final int CONNECTED = 2;
    /** That CONNECT was level 5: later packets are checked with the MQTT 5.0 layouts. */
    private static final int MQTT5 = 4;
    /** A {@code read()} request is waiting for the next packet (reading is paused and none was held). */
    private static final int REQUESTED = 8;

    /** {@link #next} answer when only asked whether a packet or refusal is ready. */
    private static final Object READY = new Object();

    /** Shared by the listener's connections: one reference per handler (24 bytes per handler, not 32). */
    private final PacketDecoding decoding;
    /** {@link #REFUSED}, {@link #CONNECTED}, {@link #MQTT5}, {@link #REQUESTED}. */
    private byte flags;
    /** Bytes received and not yet passed on as packets; null when there are none. */
    private ByteBuf held;

    /** @param decoding one instance for all connections of a listener */
    public MqttPacketDecoder(PacketDecoding decoding) {
        this.decoding = decoding;
    }

    MqttPacketDecoder(int maxPacketSize, int maxClientIdLength) {
        this(new PacketDecoding(maxPacketSize, maxClientIdLength));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (is(REFUSED)) {
            in.release();
            return;
        }
        held = held == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), held, in);
        // a waiting read() request is answered by this packet even while reading is paused
        passOn(ctx, is(REQUESTED) ? 1 : 0);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (is(REQUESTED) && !ctx.channel().config().isAutoRead()) {
            // the request is still waiting: the bytes read did not finish a packet
            ctx.read();
        }
        if (next(ctx, false) == null) {
            ctx.fireChannelReadComplete();
        }
        // else packets are held back: their read() requests will complete them
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        int passed = passOn(ctx, 1);
        if (passed == 0) {
            if (!is(REFUSED)) {
                flags |= REQUESTED;
            }
            ctx.read();
            return;
        }
        if (next(ctx, false) == null) {
            // packets passed on from what was held complete no socket read: their completion is fired here
            ctx.fireChannelReadComplete();
        }
        if (ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    /**
     * Passes on at least {@code minimum} held packets if there are so many, and every one while the channel is
     * auto-read. A handler that asks to read while one is passed on comes back in here (through {@link #read}).
     */
    private int passOn(ChannelHandlerContext ctx, int minimum) {
        int passed = 0;
        while (passed < minimum || ctx.channel().config().isAutoRead()) {
            Object message = next(ctx, true);
            if (message == null) {
                break;
            }
            if (passed++ == 0) {
                flags &= ~REQUESTED;
            }
            ctx.fireChannelRead(message);
        }
        return passed;
    }

    /**
     * The next held packet, decoded, or its refusal; null if no whole packet is held. With {@code take} false only
     * whether there is one ({@link #READY}), nothing consumed.
     */
    private Object next(ChannelHandlerContext ctx, boolean take) {
        ByteBuf in = held;
        if (in == null || is(REFUSED)) {
            return null;
        }
        if (!in.isReadable()) {
            releaseHeld();
            return null;
        }
        int readable = in.readableBytes();
        int start = in.readerIndex();
        int first = in.getUnsignedByte(start);
        Violation violation = PacketDecoding.checkFixedHeader(first, is(MQTT5));
        if (violation != null) {
            return take ? refuse(violation) : READY;
        }
        int remaining = 0;
        int headerLength = 1;
        for (int shift = 0; ; shift += 7) {
            if (headerLength >= readable) {
                return null;
            }
            int digit = in.getUnsignedByte(start + headerLength++);
            remaining |= (digit & 0x7F) << shift;
            if ((digit & 0x80) == 0) {
                break;
            }
            if (headerLength == 5) {
                return take ? refuse(PacketDecoding.remainingLengthTooLong()) : READY;
            }
        }
        violation = decoding.checkRemainingLength(remaining);
        if (violation != null) {
            return take ? refuse(violation) : READY;
        }
        if (readable < headerLength + remaining) {
            return null;
        }
        if (!take) {
            return READY;
        }
        MqttMessage message = decoding.decode(in, start, headerLength, remaining, is(MQTT5), is(CONNECTED));
        in.skipBytes(headerLength + remaining);
        if (!in.isReadable()) {
            releaseHeld();
        }
        if (message.decoderResult().isFailure()) {
            refused();
        } else if (message instanceof MqttConnectMessage connect) {
            MqttVersion version = MqttVersion.fromProtocolNameAndLevel(connect.variableHeader().name(),
                    (byte) connect.variableHeader().version());
            flags |= version == MqttVersion.MQTT_5 ? CONNECTED | MQTT5 : CONNECTED;
            ctx.channel().attr(MQTT_VERSION).set(version);
        }
        return message;
    }

    private boolean is(int flag) {
        return (flags & flag) != 0;
    }

    private Object refuse(Violation violation) {
        refused();
        return PacketDecoding.invalid(violation);
    }

    private void refused() {
        flags = (byte) ((flags | REFUSED) & ~REQUESTED);
        releaseHeld();
    }

    private void releaseHeld() {
        ByteBuf in = held;
        if (in != null) {
            held = null;
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // packets held back while reading was paused are not handled after the connection ended
        releaseHeld();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }
}
