package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.net.SocketAddress;

/**
 * Netty's {@link MqttDecoder} applied to one whole packet at a time, one decoder per event loop thread shared by the
 * loop's connections: a connection keeps no decoder, replay buffer or UTF-8 charset decoder of its own.
 * Sharing is sound because a whole, valid packet leaves the decoder as it found it (waiting for a fixed header,
 * nothing cumulated), because the decoder is handed a context that only collects what it decodes (no other handler
 * runs while it decodes, so nothing re-enters it) and because the connection's protocol version lives in a channel
 * attribute, which that context reaches through the connection's own channel. A decoder that failed (it stays failed)
 * or did not read its packet to the end is dropped and the thread gets a new one. Event loop only.
 */
final class WholePacketDecoder implements ChannelHandlerContext {
    private static final FastThreadLocal<WholePacketDecoder> DECODERS = new FastThreadLocal<>();

    private final MqttPacketDecoder.Limits limits;
    private final MqttDecoder decoder;
    /** The connection whose packet is being decoded; set only during {@link #decodeOne}. */
    private ChannelHandlerContext target;
    private MqttMessage decoded;
    private boolean more;

    private WholePacketDecoder(MqttPacketDecoder.Limits limits) {
        this.limits = limits;
        this.decoder = new MqttDecoder(limits.maxPacketSize(), limits.maxClientIdLength());
    }

    /**
     * Decodes {@code packet}, one whole packet of {@code ctx}'s connection, and takes over its reference. Returns the
     * message (an invalid-message value if the decoder refused it, as Netty's decoder reports a failure), or null if
     * the decoder did not read the packet exactly to its end (it waited for more bytes or found a second packet).
     */
    static MqttMessage decode(ChannelHandlerContext ctx, ByteBuf packet, MqttPacketDecoder.Limits limits) {
        WholePacketDecoder d = DECODERS.get();
        if (d == null || (d.limits != limits && !d.limits.equals(limits))) {
            // a thread serves connections with other limits only in tests (or listeners with different limits)
            d = new WholePacketDecoder(limits);
            DECODERS.set(d);
        }
        return d.decodeOne(ctx, packet);
    }

    private MqttMessage decodeOne(ChannelHandlerContext ctx, ByteBuf packet) {
        target = ctx;
        // one reference for the decoder, which releases the packet once read to its end; ours to see whether it was
        packet.retain();
        boolean reusable = false;
        try {
            decoder.channelRead(this, packet);
            MqttMessage message = decoded;
            decoded = null;
            if (packet.isReadable() || more || message == null) {
                ReferenceCountUtil.release(message);
                return null;
            }
            reusable = message.decoderResult().isSuccess();
            return message;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // ByteToMessageDecoder declares Exception but throws DecoderException only
            throw new DecoderException(e);
        } finally {
            if (packet.isReadable()) {
                // the decoder kept the rest, waiting for bytes of the next packet: it is dropped, its reference too
                packet.release();
            }
            packet.release();
            ReferenceCountUtil.release(decoded);
            target = null;
            decoded = null;
            more = false;
            if (!reusable) {
                // failed decoders stay failed; one that kept bytes is mid-packet
                DECODERS.remove();
            }
        }
    }

    /** What the decoder decoded: the one message expected, or a sign that there was more than one. */
    @Override
    public ChannelHandlerContext fireChannelRead(Object msg) {
        if (decoded == null && msg instanceof MqttMessage m) {
            decoded = m;
        } else {
            more = true;
            ReferenceCountUtil.release(msg);
        }
        return this;
    }

    // What the decoder reads from its context: the connection's channel (its protocol version attribute), allocator
    // and state.

    @Override
    public Channel channel() {
        return target.channel();
    }

    @Override
    public ByteBufAllocator alloc() {
        return target.alloc();
    }

    @Override
    public boolean isRemoved() {
        return target.isRemoved();
    }

    @Override
    public EventExecutor executor() {
        return target.executor();
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public ChannelHandler handler() {
        return decoder;
    }

    @Override
    public ChannelPipeline pipeline() {
        return target.pipeline();
    }

    @Override
    @Deprecated
    public <T> Attribute<T> attr(AttributeKey<T> key) {
        return target.channel().attr(key);
    }

    @Override
    @Deprecated
    public <T> boolean hasAttr(AttributeKey<T> key) {
        return target.channel().hasAttr(key);
    }

    // Nothing else: the decoder only decodes here; any other event or operation would be a change in Netty's decoder
    // that this class must be checked against.

    private static UnsupportedOperationException notForTheDecoder() {
        return new UnsupportedOperationException("a packet decoder context only collects decoded messages");
    }

    @Override
    public ChannelHandlerContext fireChannelRegistered() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireChannelUnregistered() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireChannelActive() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireChannelInactive() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireExceptionCaught(Throwable cause) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireUserEventTriggered(Object evt) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireChannelReadComplete() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext fireChannelWritabilityChanged() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext read() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelHandlerContext flush() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture bind(SocketAddress localAddress, ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture connect(SocketAddress remoteAddress, ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture disconnect(ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture close(ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture deregister(ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture write(Object msg, ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture writeAndFlush(Object msg, ChannelPromise promise) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelPromise newPromise() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelProgressivePromise newProgressivePromise() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture newSucceededFuture() {
        throw notForTheDecoder();
    }

    @Override
    public ChannelFuture newFailedFuture(Throwable cause) {
        throw notForTheDecoder();
    }

    @Override
    public ChannelPromise voidPromise() {
        throw notForTheDecoder();
    }
}
