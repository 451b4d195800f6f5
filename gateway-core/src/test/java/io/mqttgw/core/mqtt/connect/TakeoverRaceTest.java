package io.mqttgw.core.mqtt.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.defaults.InMemoryRouteStore;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.testkit.ForwardingSessionStore;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two CONNECTs for one client id, accepted on two event loops, whose authentication answers are released together
 * by a barrier, so both decide at the same moment: whatever the interleaving, the connection with the newer epoch is
 * the one the registry holds, the route store names and the session store keeps alive.
 */
class TakeoverRaceTest {
    private static final int ROUNDS = 300;

    @TempDir
    Path dir;

    /** The epoch of each client id's last route write, and of its last session open, in call order. */
    private final Map<String, Long> lastRouteWrite = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSessionOpen = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> sessionExpiries = new ConcurrentHashMap<>();

    @Test
    void newestEpochWinsRegistryRouteAndSessionWhenTwoConnectsRaceOnTwoLoops() throws Exception {
        ExecutorService answers = Executors.newFixedThreadPool(2);
        CyclicBarrier barrier = new CyclicBarrier(2);
        ProtocolFixture f = ProtocolFixture.builder(dir).authAnswers(request -> CompletableFuture.supplyAsync(() -> {
            try {
                barrier.await(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return AuthResult.ALLOWED;
        }, answers)).build();
        InMemoryRouteStore routes = new InMemoryRouteStore();
        SessionServices services = new SessionServices(f.config, f.metrics, f.registry, f.auth,
                new RecordingRoutes(routes), f.sink, new EventLog(1000), SessionServices.newEpochSource(),
                new AdmissionControl(0, 0, new SimpleMeterRegistry()), new RecordingSessions(f.sessions));
        List<Channel> accepted = new CopyOnWriteArrayList<>();
        DeviceChannelInitializer devices = new DeviceChannelInitializer("tcp", services, null, null, false);
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        EventLoopGroup clients = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        LocalAddress address = new LocalAddress("takeover-race-" + System.nanoTime());
        Channel server = new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.add(ch);
                        ch.pipeline().addLast(devices);
                    }
                }).bind(address).sync().channel();
        Bootstrap client = new Bootstrap().group(clients).channel(LocalChannel.class)
                .handler(Discard.INSTANCE);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String id = "race-" + round;
                accepted.clear();
                Channel a = client.connect(address).sync().channel();
                Channel b = client.connect(address).sync().channel();
                await(() -> accepted.size() == 2, "both connections accepted");
                assertNotSame(accepted.get(0).eventLoop(), accepted.get(1).eventLoop(), "two event loops");
                for (Channel c : List.of(a, b)) {
                    c.writeAndFlush(ProtocolFixture.encode(MqttMessageBuilders.connect().clientId(id)
                            .cleanSession(false).keepAlive(60).build()));
                }
                // settled: one connection closed, the other served its session (read on its own event loop)
                await(() -> survivorSettled(accepted), "one survivor in round " + round);
                Channel survivor = accepted.stream().filter(Channel::isActive).findFirst().orElseThrow();
                Channel loser = accepted.stream().filter(c -> !c.isActive()).findFirst().orElseThrow();
                long survivorEpoch = onLoop(survivor, () -> ConnectionContext.of(survivor).route().epoch());
                long loserEpoch = onLoop(loser, () -> ConnectionContext.of(loser).route().epoch());
                String key = onLoop(survivor, () -> ConnectionContext.of(survivor).sessionKey());
                // the loser's close (route delete, session expiry) has run on its loop
                loser.eventLoop().submit(() -> { }).sync();

                assertTrue(survivorEpoch > loserEpoch, "round " + round + ": the survivor holds the newer epoch");
                assertSame(survivor, f.registry.find(id), "round " + round + ": registry");
                Optional<Route> route = routes.lookup(id).toCompletableFuture().get(15, TimeUnit.SECONDS);
                assertEquals(survivorEpoch, route.orElseThrow().epoch(), "round " + round + ": route store");
                assertEquals(survivorEpoch, lastRouteWrite.get(id), "round " + round + ": last route write");
                assertEquals(survivorEpoch, lastSessionOpen.get(key), "round " + round + ": last session open");
                assertTrue(!sessionExpiries.getOrDefault(key, List.of()).contains(survivorEpoch),
                        "round " + round + ": the survivor's session was not expired");
                a.close().sync();
                b.close().sync();
            }
        } finally {
            server.close().sync();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            clients.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            answers.shutdownNow();
        }
    }

    /** The device side reads and drops what the gateway sends. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Discard extends ChannelInboundHandlerAdapter {
        static final Discard INSTANCE = new Discard();

        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** True once exactly one connection is open and its session is open and restored. */
    private static boolean survivorSettled(List<Channel> accepted) throws Exception {
        List<Channel> active = accepted.stream().filter(Channel::isActive).toList();
        if (active.size() != 1) {
            return false;
        }
        Channel c = active.get(0);
        return onLoop(c, () -> {
            ConnectionContext ctx = ConnectionContext.of(c);
            return ctx.sessionOpen() && !ctx.restoring();
        });
    }

    /** Reads event-loop-only state where it lives: on the channel's event loop. */
    private static <T> T onLoop(Channel channel, java.util.concurrent.Callable<T> read) throws Exception {
        return channel.eventLoop().submit(read).get(15, TimeUnit.SECONDS);
    }

    /** A condition that may read state on an event loop. */
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(1);
        }
    }

    /** The in-memory route store, with the order of its writes recorded. */
    private final class RecordingRoutes implements RouteStore {
        private final RouteStore delegate;

        RecordingRoutes(RouteStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<Void> put(Route route) {
            lastRouteWrite.put(route.clientId(), route.epoch());
            return delegate.put(route);
        }

        @Override
        public CompletionStage<Void> remove(Route route) {
            return delegate.remove(route);
        }

        @Override
        public CompletionStage<Optional<Route>> lookup(String clientId) {
            return delegate.lookup(clientId);
        }
    }

    /** The in-memory session store, with the order of its opens and the expiries it was asked for recorded. */
    private final class RecordingSessions extends ForwardingSessionStore {
        RecordingSessions(SessionStore delegate) {
            super(delegate);
        }

        @Override
        public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis,
                                                   long epoch) {
            lastSessionOpen.put(clientId, epoch);
            return super.open(clientId, cleanStart, expiryMillis, epoch);
        }

        @Override
        public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
            if (lastSessionOpen.get(clientId) == epoch) {
                sessionExpiries.computeIfAbsent(clientId, k -> new CopyOnWriteArrayList<>()).add(epoch);
            }
            return super.disconnected(clientId, epoch, expiryMillis);
        }
    }
}
