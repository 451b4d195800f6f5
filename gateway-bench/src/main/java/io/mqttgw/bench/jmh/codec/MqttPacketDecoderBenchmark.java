package io.mqttgw.bench.jmh.codec;

import io.mqttgw.core.codec.MqttPacketDecoder;
import io.mqttgw.core.codec.PacketDecoding;
import io.mqttgw.core.testkit.MqttBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.util.ReferenceCountUtil;
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
 * The gateway's packet decoder as a device's connection runs it (framing, checks, decoding, one pipeline entry):
 * a QoS 1 PUBLISH of 200 bytes on an MQTT 3.1.1 connection and on a 5.0 one (with message expiry, content type
 * and a user property), and a PINGREQ. The connection's CONNECT is decoded once in the set-up.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class MqttPacketDecoderBenchmark {
    @Param({"4", "5"})
    public int level;

    private EmbeddedChannel channel;
    private ByteBuf publish;
    private ByteBuf ping;

    @Setup(Level.Trial)
    public void setUp() {
        channel = new EmbeddedChannel(new MqttPacketDecoder(new PacketDecoding(256 * 1024, 23)));
        boolean v5 = level == 5;
        channel.writeInbound(buffer(MqttBytes.connect(v5, "dev-123456")));
        MqttMessage connected = channel.readInbound();
        if (connected == null || !connected.decoderResult().isSuccess()) {
            throw new IllegalStateException("CONNECT refused: " + connected);
        }
        MqttBytes body = new MqttBytes().string("devices/dev-123456/status").u16(42);
        if (v5) {
            MqttBytes props = new MqttBytes().u8(0x02).u32(3600).u8(0x03).string("application/json")
                    .u8(0x26).string("trace").string("4bf92f3577b34da6");
            byte[] p = props.bytes();
            body.u8(p.length).raw(p);
        }
        publish = buffer(body.raw(new byte[200]).packet(0x32));
        ping = buffer(new byte[] {(byte) 0xC0, 0});
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        publish.release();
        ping.release();
    }

    private static ByteBuf buffer(byte[] bytes) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
    }

    private Object decode(ByteBuf bytes) {
        channel.writeInbound(bytes.retainedDuplicate());
        MqttMessage m = channel.readInbound();
        if (!m.decoderResult().isSuccess()) {
            throw new IllegalStateException("refused: " + m.decoderResult().cause());
        }
        ReferenceCountUtil.release(m);
        return m;
    }

    @Benchmark
    public Object decodePublishQos1() {
        return decode(publish);
    }

    @Benchmark
    public Object decodePingreq() {
        return decode(ping);
    }
}
