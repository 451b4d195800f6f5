package io.mqttgw.core.codec;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageFactory;

/**
 * Turns a device's bytes into MQTT messages, one packet at a time and only as fast as the pipeline asks for them.
 *
 * <p>Framing and refusal: whole packets are cut from the bytes and only packets that pass {@link PacketRules} are
 * decoded, so Netty's decoder never reads a field past its packet (it would wait for, or swallow, the next packet's
 * bytes) nor indexes an array or enum with a value the spec forbids. A packet over {@code mqtt.max-packet-size} is
 * refused as soon as its remaining length is read, before its body is buffered. A refused packet becomes the same
 * invalid-message value the decoder emits (cause {@link InvalidPacketException}) for {@link InvalidPacketHandler} (or
 * the session handler), the one place that turns it into a counted close; every later byte is discarded, after a
 * packet the decoder refused too. Once a level-5 CONNECT passed, the MQTT 5.0 layouts apply (the connection's
 * protocol is its CONNECT's, as for the decoder); a second CONNECT is refused. As a safety net for what the rules
 * leave to the decoder, a packet the decoder did not read exactly to its end is refused too.
 *
 * <p>Decoding: each whole packet is decoded on its own by {@link WholePacketDecoder} (Netty's decoder, one per event
 * loop), just before it is passed on.
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
 * <p>This is one pipeline entry where a framer, Netty's decoder and a flow-control handler were three. One
 * instance per connection; event loop only.
 */
public final class MqttPacketDecoder extends ChannelDuplexHandler {
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
    /** The CONNECT passed; another one is refused (it would switch the decoder's protocol). */
    private static final int CONNECTED = 2;
    /** That CONNECT was level 5: later packets are checked with the MQTT 5.0 layouts. */
    private static final int MQTT5 = 4;
    /** A {@code read()} request is waiting for the next packet (reading is paused and none was held). */
    private static final int REQUESTED = 8;

    /** {@link #next} answer when only asked whether a packet or refusal is ready. */
    private static final Object READY = new Object();

    /** Shared by the listener's connections: one reference here instead of two ints (24 bytes per handler, not 32). */
    private final Limits limits;
    /** {@link #REFUSED}, {@link #CONNECTED}, {@link #MQTT5}, {@link #REQUESTED}. */
    private byte flags;
    /** Bytes received and not yet passed on as packets; null when there are none. */
    private ByteBuf held;

    /**
     * The sizes a connection's packets are held to.
     *
     * @param maxPacketSize     {@code mqtt.max-packet-size}: the largest remaining length accepted
     * @param maxClientIdLength the client id length Netty's decoder allows MQTT 3.1 devices
     */
    public record Limits(int maxPacketSize, int maxClientIdLength) {
    }

    /** @param limits one instance for all connections of a listener */
    public MqttPacketDecoder(Limits limits) {
        this.limits = limits;
    }

    MqttPacketDecoder(int maxPacketSize, int maxClientIdLength) {
        this(new Limits(maxPacketSize, maxClientIdLength));
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
        PacketRules.Violation violation = PacketRules.checkFixedHeader(first, is(MQTT5));
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
                return take ? refuse(REMAINING_LENGTH) : READY;
            }
        }
        if (remaining > limits.maxPacketSize()) {
            return take ? refuse(TOO_LARGE) : READY;
        }
        if (readable < headerLength + remaining) {
            return null;
        }
        if (!take) {
            return READY;
        }
        ByteBuf body = in.slice(start + headerLength, remaining);
        violation = PacketRules.checkBody(first, body, is(MQTT5));
        if (violation != null) {
            return refuse(violation);
        }
        if ((first >> 4) == 1) {
            if (is(CONNECTED)) {
                return refuse(SECOND_CONNECT);
            }
            flags |= PacketRules.isMqtt5Connect(body) ? CONNECTED | MQTT5 : CONNECTED;
        }
        ByteBuf packet = in.readRetainedSlice(headerLength + remaining);
        if (!in.isReadable()) {
            releaseHeld();
        }
        if (!packet.isContiguous()) {
            // the decoder would copy a non-contiguous packet into its own buffer, hiding whether it read it to its end
            ByteBuf copy = ctx.alloc().buffer(packet.readableBytes());
            copy.writeBytes(packet);
            packet.release();
            packet = copy;
        }
        MqttMessage message = WholePacketDecoder.decode(ctx, packet, limits);
        if (message == null) {
            return refuse(NOT_READ_TO_END);
        }
        if (message.decoderResult().isFailure()) {
            // the decoder refused it: like the decoder, read nothing after it
            refused();
        }
        return message;
    }

    private boolean is(int flag) {
        return (flags & flag) != 0;
    }

    private Object refuse(PacketRules.Violation violation) {
        refused();
        return MqttMessageFactory.newInvalidMessage(new InvalidPacketException(violation));
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
