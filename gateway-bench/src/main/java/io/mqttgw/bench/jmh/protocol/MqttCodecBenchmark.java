package io.mqttgw.bench.jmh.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
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
 * netty-codec-mqtt as the gateway uses it: decode and encode of CONNECT and of a QoS 1 PUBLISH with the field's
 * payload sizes (20-byte heartbeat, 500-byte status), through embedded channels so the real handler code runs.
 * Single-threaded state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MqttCodecBenchmark {
    @Param({"20", "500"})
    public int payload;

    private EmbeddedChannel decoder;
    private EmbeddedChannel encoder;
    private ByteBuf publishBytes;
    private ByteBuf connectBytes;
    private ByteBuf payloadBuf;

    @Setup(Level.Trial)
    public void setUp() {
        decoder = new EmbeddedChannel(new MqttDecoder(256 * 1024));
        encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        payloadBuf = Unpooled.directBuffer(payload).writeZero(payload);
        publishBytes = Unpooled.directBuffer().writeBytes(encode(publish()));
        connectBytes = Unpooled.directBuffer().writeBytes(encode(connect()));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decoder.finishAndReleaseAll();
        encoder.finishAndReleaseAll();
        publishBytes.release();
        connectBytes.release();
        payloadBuf.release();
    }

    private MqttPublishMessage publish() {
        return new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE,
                false, 0), new MqttPublishVariableHeader("devices/dev-123456/status", 42), payloadBuf.retainedSlice());
    }

    private static MqttConnectMessage connect() {
        return MqttMessageBuilders.connect().clientId("dev-123456").protocolVersion(MqttVersion.MQTT_3_1_1)
                .cleanSession(true).keepAlive(120).build();
    }

    private ByteBuf encode(MqttMessage m) {
        encoder.writeOutbound(m);
        ByteBuf b = encoder.readOutbound();
        ByteBuf copy = PooledByteBufAllocator.DEFAULT.heapBuffer().writeBytes(b);
        b.release();
        return copy;
    }

    private Object decode(ByteBuf bytes) {
        decoder.writeInbound(bytes.retainedDuplicate());
        Object m = decoder.readInbound();
        ReferenceCountUtil.release(m);
        return m;
    }

    @Benchmark
    public Object decodePublish() {
        return decode(publishBytes);
    }

    @Benchmark
    public Object decodeConnect() {
        return decode(connectBytes);
    }

    @Benchmark
    public int encodePublish() {
        encoder.writeOutbound(publish());
        ByteBuf b = encoder.readOutbound();
        int n = b.readableBytes();
        b.release();
        return n;
    }

    @Benchmark
    public int encodeConnect() {
        encoder.writeOutbound(connect());
        ByteBuf b = encoder.readOutbound();
        int n = b.readableBytes();
        b.release();
        return n;
    }
}
