package io.mqttgw.core.testkit;

import io.mqttgw.core.admission.AdmissionControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.defaults.InMemoryRouteStore;
import io.mqttgw.core.defaults.InMemorySessionStore;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.publish.UplinkPublishHandler;
import io.mqttgw.core.pipeline.EstablishedSessionHandler;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.subscribe.SubscriptionHandler;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.RoomWait;
import io.mqttgw.core.spi.RoomWaiters;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Function;

/**
 * Shared set-up for the protocol tests: {@link SessionServices} over a real {@link GatewayConfig} (plain TCP
 * listener), a {@link SimpleMeterRegistry}, a fresh registry and route store, an authenticator and a sink the test
 * answers by hand. Also a byte codec so tests talk to a real pipeline the way a device does.
 */
public final class ProtocolFixture {
    /** The channel attribute where Netty's MQTT codec keeps the protocol of the connection's CONNECT. */
    public static final AttributeKey<MqttVersion> CODEC_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");
    public final GatewayConfig config;
    public final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    public final GatewayMetrics metrics = new GatewayMetrics(meters);
    public final ChannelRegistry registry = new ChannelRegistry(16);
    public final ManualAuthenticator auth;
    public final InMemoryRouteStore routes = new InMemoryRouteStore();
    public final ManualSink sink;
    public final InMemorySessionStore sessions = new InMemorySessionStore(60_000, 100, 100, System::currentTimeMillis);
    public final SessionServices services;

    private ProtocolFixture(GatewayConfig config, ManualAuthenticator auth, ManualSink sink) {
        this.config = config;
        this.auth = auth;
        this.sink = sink;
        this.services = new SessionServices(config, metrics, registry, auth, routes, sink, new EventLog(1000),
                SessionServices.newEpochSource(), new AdmissionControl(0, 0, new SimpleMeterRegistry()), sessions);
    }

    /**
     * @param overrides key, value, key, value... applied over {@link TestGateway#tcp}, whose topic ACL here allows
     *                  every topic (tests of the ACL set it back)
     */
    public static ProtocolFixture create(Path dir, String... overrides) {
        return builder(dir).with(overrides).build();
    }

    /** A fixture whose authenticator or sink answer at once; by default both wait for the test, as {@link #create}. */
    public static Builder builder(Path dir) {
        return new Builder(dir);
    }

    /** What a fixture is made of, fixed when it is built: a test that needs other answers builds another fixture. */
    public static final class Builder {
        private final TestGateway gateway;
        private Function<AuthRequest, CompletionStage<AuthResult>> authAnswers;
        private Function<UplinkMessage, CompletionStage<Void>> sinkAnswers;

        private Builder(Path dir) {
            gateway = TestGateway.tcp(dir).with("acl.publish", "#").with("acl.subscribe", "#");
        }

        /** Config keys over {@link TestGateway#tcp}: key, value, key, value... */
        public Builder with(String... overrides) {
            for (int i = 0; i < overrides.length; i += 2) {
                gateway.with(overrides[i], overrides[i + 1]);
            }
            return this;
        }

        /** The authenticator answers every request at once with what {@code answers} returns. */
        public Builder authAnswers(Function<AuthRequest, CompletionStage<AuthResult>> answers) {
            this.authAnswers = answers;
            return this;
        }

        /** The authenticator allows every device at once. */
        public Builder allowing() {
            return authAnswers(r -> CompletableFuture.completedFuture(AuthResult.ALLOWED));
        }

        /** The sink answers every message at once with what {@code answers} returns (and still records it). */
        public Builder sinkAnswers(Function<UplinkMessage, CompletionStage<Void>> answers) {
            this.sinkAnswers = answers;
            return this;
        }

        /** The sink acknowledges every message at once. */
        public Builder sinkAccepting() {
            return sinkAnswers(m -> CompletableFuture.completedFuture(null));
        }

        public ProtocolFixture build() {
            return new ProtocolFixture(gateway.config(), new ManualAuthenticator(authAnswers),
                    new ManualSink(sinkAnswers));
        }
    }

    /** A device channel on the plain TCP listener's pipeline, exactly as the gateway assembles it. */
    public EmbeddedChannel deviceChannel() {
        return new EmbeddedChannel(new DeviceChannelInitializer("tcp", services, null, null, false));
    }

    /** The handler of an established session over this fixture's services and sink (32 uplink messages in flight). */
    public EstablishedSessionHandler sessionHandler() {
        return new EstablishedSessionHandler(new UplinkPublishHandler(sink, metrics, 32, true),
                new SubscriptionHandler(services));
    }

    /** The handler of an established session with {@code publish} for uplink; the rest over a default fixture. */
    public static EstablishedSessionHandler sessionHandler(UplinkPublishHandler publish) {
        return new EstablishedSessionHandler(publish, new SubscriptionHandler(create(Path.of("target")).services));
    }

    /** The handler of an established session over a default fixture, for tests of packets other than PUBLISH. */
    public static EstablishedSessionHandler defaultSessionHandler() {
        return create(Path.of("target")).sessionHandler();
    }

    public double counter(String name) {
        return meters.get(name).counter().count();
    }

    // ---------------------------------------------------------------------------------------------------------
    // wire helpers

    /** The bytes a device would send for {@code messages}, in order (PUBLISH payloads are consumed). */
    public static ByteBuf encode(MqttMessage... messages) {
        return encode(MqttVersion.MQTT_3_1_1, messages);
    }

    /** The bytes an MQTT 5.0 device (after its CONNECT) would send for {@code messages}. */
    public static ByteBuf encode5(MqttMessage... messages) {
        return encode(MqttVersion.MQTT_5, messages);
    }

    /** Writes {@code messages} to the device channel as an MQTT 5.0 device's bytes, as one read. */
    public static void send5(EmbeddedChannel ch, MqttMessage... messages) {
        ch.writeInbound(encode5(messages));
    }

    private static ByteBuf encode(MqttVersion version, MqttMessage... messages) {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.attr(CODEC_VERSION).set(version);
        try {
            ByteBuf out = Unpooled.buffer();
            for (MqttMessage m : messages) {
                encoder.writeOutbound(m);
                for (ByteBuf b = encoder.readOutbound(); b != null; b = encoder.readOutbound()) {
                    out.writeBytes(b);
                    b.release();
                }
            }
            return out;
        } finally {
            encoder.finishAndReleaseAll();
        }
    }

    /** The bytes of a packet of {@code firstByte} around {@code body} (under 128 bytes), for hand-made packets. */
    public static byte[] packet(int firstByte, int... body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(firstByte);
        out.write(body.length);
        for (int b : body) {
            out.write(b);
        }
        return out.toByteArray();
    }

    /** Writes {@code messages} to the device channel as bytes, as one read. */
    public static void send(EmbeddedChannel ch, MqttMessage... messages) {
        ch.writeInbound(encode(messages));
    }

    /**
     * Everything the channel wrote so far, decoded the way a 3.1.1 device decodes it. Decoded PUBLISHes hold a
     * buffer: release them with {@link #release}.
     */
    public static List<MqttMessage> written(EmbeddedChannel ch) {
        return written(ch, MqttVersion.MQTT_3_1_1);
    }

    /** Everything the channel wrote so far, decoded the way an MQTT 5.0 device decodes it (properties included). */
    public static List<MqttMessage> written5(EmbeddedChannel ch) {
        return written(ch, MqttVersion.MQTT_5);
    }

    private static List<MqttMessage> written(EmbeddedChannel ch, MqttVersion version) {
        List<MqttMessage> messages = new ArrayList<>();
        EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        decoder.attr(CODEC_VERSION).set(version);
        try {
            for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
                if (o instanceof ByteBuf b) {
                    decoder.writeInbound(b);
                    for (Object m = decoder.readInbound(); m != null; m = decoder.readInbound()) {
                        messages.add((MqttMessage) m);
                    }
                } else {
                    messages.add((MqttMessage) o);
                }
            }
            for (MqttMessage m : messages) {
                if (!m.decoderResult().isSuccess()) {
                    release(messages);
                    throw new AssertionError("the gateway wrote an undecodable packet: " + m.decoderResult());
                }
            }
            return messages;
        } finally {
            decoder.finishAndReleaseAll();
        }
    }

    /** All outbound bytes, concatenated, as an array (buffers released). */
    public static byte[] writtenBytes(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        try {
            for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
                ByteBuf b = (ByteBuf) o;
                all.writeBytes(b);
                b.release();
            }
            byte[] bytes = new byte[all.readableBytes()];
            all.readBytes(bytes);
            return bytes;
        } finally {
            all.release();
        }
    }

    public static void release(List<?> messages) {
        messages.forEach(ReferenceCountUtil::release);
    }

    public static Route route(String clientId, long epoch) {
        return new Route(clientId, "test-node", epoch, 0L, "embedded");
    }

    // ---------------------------------------------------------------------------------------------------------
    // test doubles

    /** An authenticator whose answers the test gives: each request waits in {@link #requests} until completed. */
    public static final class ManualAuthenticator implements Authenticator {
        public record Call(AuthRequest request, CompletableFuture<AuthResult> answer) {
        }

        public final Deque<Call> requests = new ConcurrentLinkedDeque<>();
        /** When not null, answers at once with what it returns instead of waiting. */
        private final Function<AuthRequest, CompletionStage<AuthResult>> immediate;

        /** Every request waits in {@link #requests} until the test completes it. */
        public ManualAuthenticator() {
            this(null);
        }

        /** Answers every request at once with what {@code immediate} returns; {@code null}: waits as above. */
        public ManualAuthenticator(Function<AuthRequest, CompletionStage<AuthResult>> immediate) {
            this.immediate = immediate;
        }

        @Override
        public CompletionStage<AuthResult> authenticate(AuthRequest request) {
            if (immediate != null) {
                return immediate.apply(request);
            }
            CompletableFuture<AuthResult> answer = new CompletableFuture<>();
            requests.add(new Call(request, answer));
            return answer;
        }

        public AuthRequest peekRequest() {
            Call c = requests.peekFirst();
            if (c == null) {
                throw new AssertionError("the authenticator was not asked");
            }
            return c.request();
        }

        public Call next() {
            Call c = requests.pollFirst();
            if (c == null) {
                throw new AssertionError("the authenticator was not asked");
            }
            return c;
        }
    }

    /** A sink that holds every message with a stage the test completes. */
    public static final class ManualSink implements UplinkSink {
        public record Pending(UplinkMessage message, CompletableFuture<Void> done) {
        }

        public final Deque<Pending> received = new ArrayDeque<>();
        /** When not null, answers at once with what it returns instead of holding the message. */
        private final Function<UplinkMessage, CompletionStage<Void>> immediate;
        /** Waiters for room, woken one at a time by {@link #makeRoom}. */
        private final RoomWaiters room = new RoomWaiters(1, 1);
        private boolean full;
        private int refusedForCapacity;

        /** Holds every message until the test completes its stage. */
        public ManualSink() {
            this(null);
        }

        /** Answers every message at once with what {@code immediate} returns; {@code null}: holds it as above. */
        public ManualSink(Function<UplinkMessage, CompletionStage<Void>> immediate) {
            this.immediate = immediate;
        }

        @Override
        public synchronized CompletionStage<Void> send(UplinkMessage message) {
            if (full) {
                refusedForCapacity++;
                return CompletableFuture.failedFuture(new UplinkRejectedException("full", true));
            }
            if (immediate != null) {
                received.add(new Pending(message, null));
                return immediate.apply(message);
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            received.add(new Pending(message, done));
            return done;
        }

        /** From now on refuses every message for capacity, as a sink whose bound is full. */
        public synchronized void fill() {
            full = true;
        }

        /** Takes messages again and tells the first waiter (its event loop runs the resend as a pending task). */
        public void makeRoom() {
            synchronized (this) {
                full = false;
            }
            room.released(0);
        }

        @Override
        public boolean waitForRoom(RoomWait wait, UplinkMessage refused) {
            boolean isFull;
            synchronized (this) {
                isFull = full;
            }
            room.add(wait, 1, isFull ? 1 : 0);
            return true;
        }

        @Override
        public void endWait(RoomWait wait) {
            room.done(wait);
        }

        /** Connections waiting for room (registered and not yet told). */
        public int roomWaiters() {
            return room.waiting();
        }

        public synchronized int refusedForCapacity() {
            return refusedForCapacity;
        }

        public synchronized Pending next() {
            Pending p = received.pollFirst();
            if (p == null) {
                throw new AssertionError("nothing was handed to the sink");
            }
            return p;
        }

        public synchronized int size() {
            return received.size();
        }
    }

    /**
     * A device channel with {@code context} attached, its session restored with one subscription, registered under its
     * client id and added to {@code channels} (released by {@link #finishDevices}).
     */
    public static EmbeddedChannel subscribedDevice(io.netty.channel.ChannelHandler session, ChannelRegistry registry,
                                            List<EmbeddedChannel> channels, ConnectionContext context, String filter,
                                            io.mqttgw.core.spi.Subscription subscription) {
        EmbeddedChannel ch = new EmbeddedChannel(session);
        context.restored();
        context.subscriptions(context.subscriptions().with(filter, subscription));
        ch.attr(ConnectionContext.KEY).set(context);
        registry.register(context.clientId(), ch);
        channels.add(ch);
        return ch;
    }

    /** Closes and releases the channels {@link #subscribedDevice} made. */
    public static void finishDevices(List<EmbeddedChannel> channels) {
        for (EmbeddedChannel ch : channels) {
            ch.close();
            ConnectionContext.of(ch).closeDownlink();
            ch.finishAndReleaseAll();
        }
    }
}
