package io.mqttgw.bench.jmh.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A broadcast to {@code receivers} devices: encode the PUBLISH once and give each receiver its own copy of the
 * header bytes with its packet id patched in, sharing the body, versus encoding it once per receiver. Both produce the same bytes. Single-threaded state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FanOutBenchmark {
    @Param({"100"})
    public int receivers;

    @Param({"500"})
    public int payload;

    private EmbeddedChannel encoder;
    private ByteBuf payloadBuf;
    private static final String TOPIC = "devices/broadcast/commands";

    @Setup(Level.Trial)
    public void setUp() {
        encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        payloadBuf = Unpooled.directBuffer(payload).writeZero(payload);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        encoder.finishAndReleaseAll();
        payloadBuf.release();
    }

    private ByteBuf encode(int packetId) {
        encoder.writeOutbound(new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false,
                MqttQoS.AT_LEAST_ONCE, false, 0), new MqttPublishVariableHeader(TOPIC, packetId),
                payloadBuf.retainedSlice()));
        return encoder.readOutbound();
    }

    @Benchmark
    public long encodePerReceiver() {
        long total = 0;
        for (int r = 0; r < receivers; r++) {
            ByteBuf b = encode(r + 1);
            total += b.readableBytes();
            b.release();
        }
        return total;
    }

    @Benchmark
    public long serialiseOnceAndPatchPacketId() {
        ByteBuf once = encode(1);
        // fixed header (1 byte + remaining length), then the topic (2-byte length + bytes), then the packet id
        int remainingLengthBytes = 1;
        while ((once.getByte(remainingLengthBytes) & 0x80) != 0) {
            remainingLengthBytes++;
        }
        int idOffset = 1 + remainingLengthBytes + 2 + once.getUnsignedShort(1 + remainingLengthBytes);
        int headerLength = idOffset + 2;
        long total = 0;
        for (int r = 0; r < receivers; r++) {
            // per receiver: a copy of the few header bytes with its packet id, and the shared body
            ByteBuf header = once.copy(0, headerLength);
            header.setShort(idOffset, r + 1);
            ByteBuf message = Unpooled.wrappedBuffer(header,
                    once.retainedSlice(headerLength, once.readableBytes() - headerLength));
            total += message.readableBytes();
            message.release();
        }
        once.release();
        return total;
    }
}
