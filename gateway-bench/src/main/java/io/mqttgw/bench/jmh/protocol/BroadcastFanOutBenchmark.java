package io.mqttgw.bench.jmh.protocol;

import io.mqttgw.core.mqtt.downlink.DownlinkPublish;
import io.mqttgw.core.spi.DownlinkMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One broadcast: a QoS 1 PUBLISH of {@code payload} bytes to {@code receivers} devices, each with its own
 * packet id, written through a channel pipeline that holds the gateway's {@link MqttEncoder} (as the device
 * pipeline does) in front of a sink that counts and releases what reaches it. One operation is one whole broadcast.
 * <ul>
 *   <li>{@link #sharedEncoding}: what the gateway does. {@link DownlinkPublish#encode} once; per receiver a retain
 *   (one per send, as {@code DownlinkDispatcher} takes), {@link DownlinkPublish#packet} (a composite of the shared
 *   read-only prefix, a 2-byte packet id and the shared payload) written with the void promise, and the release
 *   {@code DownlinkSession} does when the PUBACK arrives. The composite passes the encoder untouched.</li>
 *   <li>{@link #perReceiverEncoding}: the alternative. Per receiver a new {@link MqttPublishMessage} (sharing one
 *   payload buffer, so only encoding differs), encoded by {@link MqttEncoder} into a buffer of its own: topic and
 *   payload copied once per receiver.</li>
 * </ul>
 * {@link #headerCopyAndSharedPayload} is a third way, for comparison only (see there).
 * All three write the same bytes ({@code BroadcastFanOutBenchmarkTest}). Not measured here: the dispatcher's
 * per-receiver
 * hop to the receiver's event loop and its session bookkeeping (the same for both ways), and the socket write.
 * {@code allocator}: {@code pooled} is the gateway's default (pooled direct buffers: {@code -prof gc} then counts
 * only the heap objects, not the buffers' memory); {@code unpooled-heap} makes every buffer a {@code byte[]}, so
 * {@code -prof gc}'s {@code gc.alloc.rate.norm} counts the buffer bytes too.
 *
 * <p>It measures the gateway's real encoder ({@link DownlinkPublish}) rather than a copy of it. Single-threaded
 * state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BroadcastFanOutBenchmark {
    static final String TOPIC = "fleet/all/firmware";

    @Param({"1000", "100000"})
    public int receivers;

    @Param({"500"})
    public int payload;

    @Param({"pooled", "unpooled-heap"})
    public String allocator;

    private ByteBufAllocator alloc;
    private EmbeddedChannel channel;
    private Sink sink;
    private DownlinkMessage message;

    /** Counts and releases whatever reaches the head of the pipeline; keeps a copy when {@code capture}. */
    static final class Sink extends ChannelOutboundHandlerAdapter {
        final List<byte[]> captured;
        long bytes;
        long packets;

        Sink(boolean capture) {
            this.captured = capture ? new ArrayList<>() : null;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ByteBuf buf = (ByteBuf) msg;
            bytes += buf.readableBytes();
            packets++;
            if (captured != null) {
                byte[] copy = new byte[buf.readableBytes()];
                buf.getBytes(buf.readerIndex(), copy);
                captured.add(copy);
            }
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // nothing to flush: the sink is the end
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        setUp(false);
    }

    void setUp(boolean capture) {
        alloc = "unpooled-heap".equals(allocator) ? new UnpooledByteBufAllocator(false)
                : PooledByteBufAllocator.DEFAULT;
        sink = new Sink(capture);
        channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        // outbound runs tail to head: the encoder first, then the sink
        channel.pipeline().addLast(sink, MqttEncoder.INSTANCE);
        byte[] bytes = new byte[payload];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ('a' + i % 26);
        }
        message = new DownlinkMessage(null, TOPIC, 1, false, bytes);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
    }

    /** Encode once, then per receiver a composite of shared slices and its packet id (the gateway's path). */
    @Benchmark
    public long sharedEncoding() {
        DownlinkPublish shared = DownlinkPublish.encode(message, alloc);
        for (int r = 0; r < receivers; r++) {
            sendShared(shared, packetId(r));
        }
        shared.release();
        return sink.packets;
    }

    /** Per receiver a PUBLISH message encoded by Netty's MqttEncoder into a buffer of its own. */
    @Benchmark
    public long perReceiverEncoding() {
        ByteBuf body = alloc.buffer(message.payload().length).writeBytes(message.payload());
        MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE,
                message.retain(), 0);
        for (int r = 0; r < receivers; r++) {
            sendPerReceiver(fixed, body, packetId(r));
        }
        body.release();
        return sink.packets;
    }

    /**
     * Not what the gateway does, for comparison: the encoding's header bytes (fixed header, topic) copied with the
     * receiver's packet id into a small buffer of its own, written in front of a shared duplicate of the payload
     * (two writes, one flush), so no composite and no read-only wrappers per receiver.
     */
    @Benchmark
    public long headerCopyAndSharedPayload() {
        DownlinkPublish shared = DownlinkPublish.encode(message, alloc);
        ByteBuf first = shared.packet(alloc, 1, 0, false);
        int headerLength = first.readableBytes() - message.payload().length - 2;
        ByteBuf header = alloc.buffer(headerLength).writeBytes(first, first.readerIndex(), headerLength);
        ByteBuf body = first.retainedSlice(first.readerIndex() + headerLength + 2, message.payload().length);
        first.release();
        for (int r = 0; r < receivers; r++) {
            sendHeaderCopy(header, body, packetId(r));
        }
        header.release();
        body.release();
        shared.release();
        return sink.packets;
    }

    void sendHeaderCopy(ByteBuf header, ByteBuf body, int packetId) {
        int n = header.readableBytes();
        channel.write(alloc.buffer(n + 2, n + 2).writeBytes(header, header.readerIndex(), n).writeShort(packetId),
                channel.voidPromise());
        channel.writeAndFlush(body.retainedDuplicate(), channel.voidPromise());
    }

    /** One receiver's send, the gateway's way: a reference per send, given back when acknowledged. */
    void sendShared(DownlinkPublish shared, int packetId) {
        shared.retain();
        channel.writeAndFlush(shared.packet(alloc, 1, packetId, false), channel.voidPromise());
        shared.release();
    }

    /** One receiver's send, encoded for it alone. */
    void sendPerReceiver(MqttFixedHeader fixed, ByteBuf body, int packetId) {
        channel.writeAndFlush(new MqttPublishMessage(fixed, new MqttPublishVariableHeader(message.topic(), packetId),
                body.retainedDuplicate()), channel.voidPromise());
    }

    /** The packet id receiver {@code r} gets: 1 to 65535, as a session's counter would give. */
    static int packetId(int r) {
        return r % 0xFFFF + 1;
    }

    Sink sink() {
        return sink;
    }

    ByteBufAllocator alloc() {
        return alloc;
    }

    DownlinkMessage message() {
        return message;
    }
}
