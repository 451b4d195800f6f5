package io.mqttgw.bench.jmh.protocol;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.bench.NodeWithoutListeners;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.defaults.CertificateAuthenticator;
import io.mqttgw.core.defaults.DiscardSink;
import io.mqttgw.core.defaults.InMemoryRouteStore;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.Providers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
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
import java.util.Map;
import java.util.Properties;
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
 * The uplink path of one connected device through the gateway's real plain-TCP pipeline
 * ({@link DeviceChannelInitializer}) in an {@link EmbeddedChannel}: PUBLISH bytes in, decode, hand-off to the
 * discard sink, and for QoS 1 the encoded PUBACK out. TLS is not included. Single-threaded state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class UplinkPublishPathBenchmark {
    @Param({"0", "1"})
    public int qos;

    @Param({"20", "500"})
    public int payload;

    private EmbeddedChannel device;
    private ByteBuf publishBytes;
    private int packetIdOffset;
    private int nextId;

    @Setup(Level.Trial)
    public void setUp() {
        Properties p = NodeWithoutListeners.properties("uplink-benchmark");
        p.setProperty("mqttgw.auth.certificate.allow-without-certificate", "true");
        p.setProperty("mqttgw.uplink.sink", "discard");
        GatewayConfig config = Gateway.configure(null, Providers.discover(), Map.of(), p);
        SessionServices services = new SessionServices(config, new GatewayMetrics(new SimpleMeterRegistry()),
                new ChannelRegistry(16), new CertificateAuthenticator(true), new InMemoryRouteStore(),
                new DiscardSink(), new EventLog(0), SessionServices.newEpochSource(),
                new AdmissionControl(0, 0, new SimpleMeterRegistry()),
                new InMemorySessionStore(60_000, 100, 100, System::currentTimeMillis));
        // plain TCP: no TLS context, no handshake budget, no PROXY protocol
        device = new EmbeddedChannel(new DeviceChannelInitializer("tcp", services, null, null, false));
        device.writeInbound(encode(MqttMessageBuilders.connect().clientId("dev-1")
                .protocolVersion(MqttVersion.MQTT_3_1_1).cleanSession(true).keepAlive(120).build()));
        device.runPendingTasks();
        drainOutbound();
        ByteBuf body = Unpooled.buffer(payload).writeZero(payload);
        publishBytes = encode(new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false,
                MqttQoS.valueOf(qos), false, 0), new MqttPublishVariableHeader("devices/dev-1/status",
                        qos > 0 ? 1 : -1),
                body));
        packetIdOffset = 2 + 2 + "devices/dev-1/status".length() + (publishBytes.getByte(1) < 0 ? 1 : 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        device.finishAndReleaseAll();
        publishBytes.release();
    }

    private static ByteBuf encode(MqttMessage m) {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.writeOutbound(m);
        ByteBuf out = Unpooled.buffer();
        for (ByteBuf b = encoder.readOutbound(); b != null; b = encoder.readOutbound()) {
            out.writeBytes(b);
            b.release();
        }
        encoder.finishAndReleaseAll();
        return out;
    }

    private int drainOutbound() {
        int n = 0;
        for (Object o = device.readOutbound(); o != null; o = device.readOutbound()) {
            n++;
            ReferenceCountUtil.release(o);
        }
        return n;
    }

    @Benchmark
    public int publish() {
        ByteBuf in = publishBytes.retainedDuplicate();
        if (qos > 0) {
            nextId = nextId >= 65_535 ? 1 : nextId + 1;
            in.setShort(packetIdOffset, nextId);
        }
        device.writeInbound(in);
        device.runPendingTasks();
        return drainOutbound();
    }
}
