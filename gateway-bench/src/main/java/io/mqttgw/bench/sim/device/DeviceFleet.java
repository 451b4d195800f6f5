package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.FleetOptions;
import io.mqttgw.bench.sim.config.GatewayTarget;
import io.mqttgw.bench.sim.config.ProtocolOptions;
import io.mqttgw.bench.sim.config.ScenarioOptions;
import io.mqttgw.bench.sim.config.TrafficProfile;
import io.mqttgw.bench.sim.pki.ClientTls;
import io.mqttgw.core.retry.FullJitterBackoff;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The devices of one process: devices {@code first} to {@code first + count - 1} of the run, spread over a few
 * event loops (epoll where available, else NIO), each device pinned to one loop. Owns the ramp
 * ({@link Connector}), the node of every attempt ({@link Balancer}; with several nodes their readiness is polled by
 * {@link NodeHealth}), reconnects with {@link FullJitterBackoff}, the traffic ({@link Traffic}), the storm drop
 * and the publish-rate driver. Per device it keeps one {@link Device}, its channel and at most one scheduled task;
 * handlers are shared. Public methods may be called from any thread; device state changes only on its loop.
 */
public final class DeviceFleet implements AutoCloseable {
    static final AttributeKey<Device> DEVICE = AttributeKey.valueOf("bench.device");
    private static final int MAX_PACKET = 1024 * 1024;
    /**
     * A QoS 1 PUBLISH still unacknowledged this long after its first send is overdue; one still overdue at the end of
     * a run (after a settle longer than this) was never acknowledged: lost.
     */
    public static final long OVERDUE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final FleetOptions options;
    private final TrafficProfile profile;
    private final FleetStats stats = new FleetStats();
    private final EventLoopGroup group;
    private final EventLoop[] loops;
    private final Bootstrap[] bootstraps;
    private final List<List<Device>> devicesByLoop = new ArrayList<>();
    private final Device[] devices;
    private final Balancer balancer;
    private final InetSocketAddress[] remotes;
    /** Polls the nodes' readiness; null with one node (nothing to balance). */
    private final NodeHealth health;
    private final List<InetAddress> sources;
    private final FullJitterBackoff backoff;
    /** Added to a dropped device's first backoff (storm --reconnect-after). */
    private final long reconnectAfterNanos;
    private final Connector connector;
    private final Traffic traffic;
    private final ByteBuf payload;
    private final boolean epoll;
    private final List<ScheduledFuture<?>> publishTasks = new ArrayList<>();
    /** Per event loop, its devices' overdue QoS 1 PUBLISHes, counted on that loop once a second. */
    private final AtomicLongArray overdueByLoop;
    private volatile boolean stopping;
    private final int first;

    /**
     * @param tls the worker's client TLS context; its key manager looks credentials up by client id
     * @param first index of this fleet's first device in the whole run
     */
    public DeviceFleet(FleetOptions options, TrafficProfile profile, ScenarioOptions run, GatewayTarget target,
                       ClientTls tls, int first, int count) {
        this.options = options;
        this.profile = profile;
        this.epoll = Epoll.isAvailable();
        this.group = new MultiThreadIoEventLoopGroup(options.ioThreads(), new DefaultThreadFactory("bench-io", true),
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.loops = new EventLoop[options.ioThreads()];
        this.bootstraps = new Bootstrap[loops.length];
        this.balancer = new Balancer(target.nodes(), target.balance());
        this.remotes = new InetSocketAddress[target.nodes().size()];
        for (int i = 0; i < remotes.length; i++) {
            remotes[i] = new InetSocketAddress(target.nodes().get(i).host(), target.nodes().get(i).port());
        }
        this.health = target.isFleet() ? new NodeHealth(balancer, target.healthInterval()) : null;
        this.sources = options.sources().addresses();
        this.backoff = new FullJitterBackoff(run.backoff().base(), run.backoff().max());
        this.reconnectAfterNanos = run.reconnectAfter().toNanos();
        int payloadBytes = Math.max(run.publishBytes(), Math.max(profile.heartbeatBytes(), profile.statusBytes()));
        byte[] random = new byte[payloadBytes];
        if (profile.numbered()) {
            // text, so that a reader of the sink can print the number at the start of each record line by line
            Arrays.fill(random, (byte) 'x');
        } else {
            ThreadLocalRandom.current().nextBytes(random);
        }
        this.payload = Unpooled.directBuffer(payloadBytes).writeBytes(random);
        this.traffic = new Traffic(profile, stats, payload);
        this.first = first;
        DeviceHandler handler = new DeviceHandler(this);
        ChannelInitializer<SocketChannel> initializer = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                Device d = ch.attr(DEVICE).get();
                SslHandler ssl = tls.newHandler(ch.alloc(), d.clientId);
                ssl.setHandshakeTimeoutMillis(options.connectTimeout().toMillis());
                ch.pipeline().addLast("tls", ssl).addLast("mqttDecoder", new MqttDecoder(MAX_PACKET))
                        .addLast("mqttEncoder", MqttEncoder.INSTANCE).addLast("device", handler);
            }
        };
        var it = group.iterator();
        for (int i = 0; i < loops.length; i++) {
            loops[i] = (EventLoop) it.next();
            Bootstrap b = new Bootstrap().group(loops[i])
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectTimeout().toMillis())
                    .handler(initializer);
            if (epoll && !sources.isEmpty()) {
                // the port is then picked at connect time per 4-tuple, so each source address gives ~28k ports
                // per destination instead of ~28k in total
                b.option(EpollChannelOption.IP_BIND_ADDRESS_NO_PORT, true);
            }
            bootstraps[i] = b;
            devicesByLoop.add(new ArrayList<>());
        }
        this.overdueByLoop = new AtomicLongArray(loops.length);
        this.devices = new Device[count];
        for (int i = 0; i < count; i++) {
            int loop = i % loops.length;
            devices[i] = new Device(first + i, options.clientId(first + i), loops[loop], this);
            devicesByLoop.get(loop).add(devices[i]);
        }
        this.connector = new Connector(stats, options.rampRate(), options.maxHandshakes(), this::connect);
    }

    public FleetStats stats() {
        return stats;
    }

    public Balancer balancer() {
        return balancer;
    }

    /**
     * The balancer's view per node ({@code node.<i>.connected}, {@code .open}, {@code .live}, {@code .refused},
     * {@code .failed}, {@code .drops}, {@code .outs}), the devices' returns after a lost connection and their QoS 1
     * bookkeeping ({@code qos1Resent}, {@code qos1AckedAfterResend}, {@code qos1Abandoned}, {@code qos1WindowFull},
     * the gauges {@code qos1Outstanding} and {@code qos1Overdue}); keys starting {@code max.} are maxima over
     * workers, the others sums.
     */
    public java.util.Map<String, Long> fleetCounters() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        for (int i = 0; i < balancer.size(); i++) {
            String n = "node." + i + ".";
            m.put(n + "connected", (long) balancer.connected(i));
            m.put(n + "open", (long) balancer.open(i));
            m.put(n + "live", balancer.isLive(i) ? 1L : 0L);
            m.put(n + "refused", balancer.refusedCount(i));
            m.put(n + "failed", balancer.failedCount(i));
            m.put(n + "drops", balancer.dropCount(i));
            m.put(n + "outs", balancer.outCount(i));
        }
        m.put("awaitingReturn", (long) stats.awaitingReturn.get());
        m.put("returns", stats.returns.sum());
        m.put("returnsResumed", stats.returnsResumed.sum());
        m.put("returnsSessionPresent", stats.returnsSessionPresent.sum());
        m.put("returnMillisTotal", stats.returnMillisTotal.sum());
        m.put("max.returnMillis", stats.returnMillisMax.get());
        m.put("max.lastReturnEpochMillis", stats.lastReturnMillis.get());
        m.put("qos1Unacked", stats.qos1Unacked.sum());
        m.put("qos1Resent", stats.qos1Resent.sum());
        m.put("qos1AckedAfterResend", stats.qos1AckedAfterResend.sum());
        m.put("qos1Abandoned", stats.qos1Abandoned.sum());
        m.put("qos1WindowFull", stats.qos1WindowFull.sum());
        m.put("qos1Outstanding", stats.qos1Outstanding.sum());
        long overdue = 0;
        for (int i = 0; i < overdueByLoop.length(); i++) {
            overdue += overdueByLoop.get(i);
        }
        m.put("qos1Overdue", overdue);
        return m;
    }

    public String transport() {
        return epoll ? "epoll" : "nio";
    }

    /** Starts the ramp: every device is queued, the connector admits them at the ramp rate. */
    public void start() {
        for (Device d : devices) {
            d.state = Device.State.QUEUED;
            connector.enqueue(d);
        }
        connector.startTicking(loops[0]);
        for (int i = 0; i < loops.length; i++) {
            int loop = i;
            List<Device> mine = devicesByLoop.get(i);
            loops[i].scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                long n = 0;
                for (Device d : mine) {
                    n += d.outbox.olderThan(OVERDUE_NANOS, now);
                }
                overdueByLoop.set(loop, n);
            }, 1, 1, TimeUnit.SECONDS);
        }
    }

    /** Marks the device whose TLS key manager was asked for a certificate (a full handshake, not a resumed one). */
    public void certificateRequested(int localIndex) {
        if (localIndex >= 0 && localIndex < devices.length) {
            devices[localIndex].certificateRequested = true;
        }
    }

    private void connect(Device d) {
        if (stopping) {
            stats.connecting.decrementAndGet();
            d.state = Device.State.IDLE;
            return;
        }
        d.state = Device.State.CONNECTING;
        d.failureCounted = false;
        d.certificateRequested = false;
        d.connectStartNanos = System.nanoTime();
        d.redispatches = 0;
        open(d, balancer.choose(d.clientId));
    }

    /** Opens the TCP connection of the device's current attempt to {@code node}; on the device's event loop. */
    private void open(Device d, int node) {
        d.node = node;
        balancer.opened(node);
        InetSocketAddress remote = remotes[node];
        Bootstrap b = bootstraps[(d.index - devices[0].index) % loops.length].clone().attr(DEVICE, d);
        ChannelFuture f = sources.isEmpty() ? b.connect(remote)
                : b.connect(remote, new InetSocketAddress(sources.get(d.index % sources.size()), 0));
        d.channel = f.channel();
        f.addListener((ChannelFutureListener) future -> {
            if (!future.isSuccess()) {
                String reason = FailureReasons.of(future.cause());
                if (redispatch(d, future.channel(), reason)) {
                    return;
                }
                onFailure(d, reason);
                onClosed(d, future.channel());
            }
        });
    }

    /**
     * A refused TCP connect takes the node out at once and, as a balancer with redispatch does (the shipped
     * HAProxy: retries + redispatch), tries the same attempt on another live node before the device sees a failure:
     * at most once per other node. False when there is no other node to try.
     */
    private boolean redispatch(Device d, Channel ch, String reason) {
        if (!FailureReasons.CONNECT_REFUSED.equals(reason) || remotes.length < 2 || d.channel != ch || stopping) {
            return false;
        }
        int refusedBy = d.node;
        balancer.refused(refusedBy);
        balancer.markDown(refusedBy);
        if (d.redispatches >= remotes.length - 1) {
            return false;
        }
        int next = balancer.choose(d.clientId, refusedBy);
        if (next == refusedBy || !balancer.isLive(next)) {
            return false;
        }
        d.redispatches++;
        balancer.closed(refusedBy);
        d.channel = null;
        open(d, next);
        return true;
    }

    void onHandshake(Device d, Channel ch) {
        if (d.certificateRequested) {
            stats.handshakesFull.increment();
        } else {
            stats.handshakesResumed.increment();
        }
        ch.writeAndFlush(connectMessage(d), ch.voidPromise());
    }

    /**
     * The device's CONNECT: 3.1.1 with a clean session, or 5.0 (protocol level 5) with clean start, the session
     * expiry interval and the receive maximum as properties. Encoding it also tells this channel's decoder which
     * version to expect in CONNACK, PUBACK and DISCONNECT.
     */
    MqttConnectMessage connectMessage(Device d) {
        ProtocolOptions protocol = options.protocol();
        MqttMessageBuilders.ConnectBuilder b = MqttMessageBuilders.connect().clientId(d.clientId)
                .cleanSession(protocol.cleanSession()).keepAlive(profile.keepAliveSeconds());
        if (!protocol.isV5()) {
            return b.protocolVersion(MqttVersion.MQTT_3_1_1).build();
        }
        MqttProperties props = new MqttProperties();
        props.add(new MqttProperties.IntegerProperty(MqttProperties.MqttPropertyType.SESSION_EXPIRY_INTERVAL.value(),
                (int) Math.min(0xFFFF_FFFFL, protocol.sessionExpiry().toSeconds())));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.MqttPropertyType.RECEIVE_MAXIMUM.value(),
                protocol.receiveMaximum()));
        return b.protocolVersion(MqttVersion.MQTT_5).properties(props).build();
    }

    void onConnAck(Device d, MqttConnAckMessage ack) {
        if (d.state != Device.State.CONNECTING) {
            return;
        }
        MqttConnectReturnCode code = ack.variableHeader().connectReturnCode();
        if (code != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
            onFailure(d, MqttReasons.connack(code));
            d.channel.close();
            return;
        }
        d.state = Device.State.CONNECTED;
        d.attempt = 0;
        d.failuresSinceConnack = 0;
        d.everConnected = true;
        stats.connecting.decrementAndGet();
        stats.connected.incrementAndGet();
        long now = System.nanoTime();
        stats.connack(now - d.connectStartNanos);
        balancer.onConnected(d.node);
        if (d.lostAtNanos != 0) {
            stats.returned(now - d.lostAtNanos, !d.certificateRequested, ack.variableHeader().isSessionPresent());
            d.lostAtNanos = 0;
        }
        Channel ch = d.channel;
        if (!options.protocol().cleanSession()) {
            traffic.resend(d, ch);
        }
        ch.writeAndFlush(MqttMessageBuilders.subscribe().messageId(d.nextPacketId())
                .addSubscription(MqttQoS.AT_LEAST_ONCE, "devices/" + d.clientId + "/commands").build(),
                ch.voidPromise());
        traffic.start(d);
    }

    /**
     * A PUBACK; {@code reasonCode} is 0 in 3.1.1. A 5.0 error code (0x80 and up) means the gateway refused the
     * message: counted under {@code puback_<reason>}, not as acknowledged, and no latency is recorded for it.
     */
    void onPubAck(Device d, int packetId, byte reasonCode) {
        boolean refused = MqttReasons.isError(reasonCode);
        if (refused) {
            stats.failure(MqttReasons.puback(reasonCode));
        } else {
            stats.acked.increment();
        }
        if (d.unacked > 0) {
            d.unacked--;
        }
        Outbox.Ack found = d.outbox.ack(packetId);
        if (found != Outbox.Ack.UNKNOWN) {
            stats.qos1Outstanding.decrement();
            if (found == Outbox.Ack.AFTER_RESEND && !refused) {
                stats.qos1AckedAfterResend.increment();
            }
        }
        if (packetId == d.pendingPacketId) {
            if (!refused) {
                stats.ackLatencyNanos(System.nanoTime() - d.pendingSentNanos);
            }
            d.pendingPacketId = 0;
        }
    }

    /**
     * A 5.0 server DISCONNECT: counted under {@code disconnect_<reason>} (before CONNACK as the attempt's failure,
     * after it in addition to the unexpected disconnect the close will count), then the connection is closed.
     */
    void onServerDisconnect(Device d, Channel ch, byte reasonCode) {
        String reason = MqttReasons.disconnect(reasonCode);
        if (d != null && d.state == Device.State.CONNECTING) {
            onFailure(d, reason);
        } else {
            stats.failure(reason);
        }
        ch.close();
    }

    void onPingResp(Device d) {
        if (d != null && d.pingSentNanos != 0) {
            stats.pingLatencyNanos(System.nanoTime() - d.pingSentNanos);
            d.pingSentNanos = 0;
        }
    }

    void onSubAck() {
        stats.subscribed.increment();
    }

    void onDownlink(Device d, MqttMessage m) {
        if (m instanceof MqttPublishMessage p && p.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE
                && d.channel != null) {
            d.channel.writeAndFlush(new MqttMessage(
                    new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 2),
                    MqttMessageIdVariableHeader.from(p.variableHeader().packetId())), d.channel.voidPromise());
        }
    }

    /** Counts a failed attempt once, by its first reason; failures after CONNACK are counted as disconnects. */
    void onFailure(Device d, String reason) {
        if (d != null && d.state == Device.State.CONNECTING && !d.failureCounted) {
            countFailure(d, reason);
        }
    }

    /**
     * Counts a failed attempt; the second failure of a device since its last CONNACK also counts once under
     * {@link FailureReasons#DEVICE_FAILED_AGAIN}, so a report tells how many devices were turned away more than once.
     */
    private void countFailure(Device d, String reason) {
        d.failureCounted = true;
        stats.failure(reason);
        balancer.failed(d.node);
        if (++d.failuresSinceConnack == 2) {
            stats.failure(FailureReasons.DEVICE_FAILED_AGAIN);
        }
    }

    void onClosed(Device d, Channel ch) {
        if (d == null || d.channel != ch) {
            return;
        }
        d.channel = null;
        if (d.timer != null) {
            d.timer.cancel(false);
            d.timer = null;
        }
        d.pendingPacketId = 0;
        d.pingSentNanos = 0;
        if (d.unacked > 0 && !stopping) {
            stats.qos1Unacked.add(d.unacked);
        }
        d.unacked = 0;
        if (options.protocol().cleanSession() && !stopping) {
            // a clean session ends the device's claim on them: MQTT has it discard what was not acknowledged
            int abandoned = d.outbox.clear();
            stats.qos1Abandoned.add(abandoned);
            stats.qos1Outstanding.add(-abandoned);
        }
        if (d.state == Device.State.CONNECTING) {
            balancer.closed(d.node);
            stats.connecting.decrementAndGet();
            if (!d.failureCounted) {
                countFailure(d, "closed_before_connack");
            }
        } else if (d.state == Device.State.CONNECTED) {
            balancer.closed(d.node);
            balancer.onDisconnected(d.node);
            stats.connected.decrementAndGet();
            if (!d.dropping && !stopping) {
                stats.unexpectedDisconnects.increment();
                balancer.dropped(d.node);
                if (d.lostAtNanos == 0) {
                    d.lostAtNanos = System.nanoTime();
                    stats.awaitingReturn.incrementAndGet();
                }
            }
        } else {
            return;
        }
        boolean dropped = d.dropping;
        d.dropping = false;
        if (stopping) {
            d.state = Device.State.IDLE;
            return;
        }
        d.state = Device.State.WAITING;
        long delay = backoff.delayNanos(++d.attempt) + (dropped ? reconnectAfterNanos : 0);
        d.timer = d.loop.schedule(d, delay, TimeUnit.NANOSECONDS);
    }

    void onTimer(Device d) {
        d.timer = null;
        if (d.state == Device.State.WAITING && !stopping) {
            d.state = Device.State.QUEUED;
            connector.enqueue(d);
        } else if (d.state == Device.State.CONNECTED && d.channel != null) {
            traffic.onTimer(d);
        }
    }

    /**
     * Closes {@code fraction} of the connected devices at once (a TCP close without DISCONNECT, as when a network
     * path fails); they reconnect with backoff. Returns how many were dropped.
     */
    public int drop(double fraction) {
        int total = 0;
        for (int i = 0; i < loops.length; i++) {
            List<Device> mine = devicesByLoop.get(i);
            try {
                total += loops[i].submit(() -> {
                    List<Device> connected = new ArrayList<>();
                    for (Device d : mine) {
                        if (d.state == Device.State.CONNECTED) {
                            connected.add(d);
                        }
                    }
                    Collections.shuffle(connected);
                    int n = (int) Math.round(fraction * connected.size());
                    for (int k = 0; k < n; k++) {
                        Device d = connected.get(k);
                        d.dropping = true;
                        stats.dropped.increment();
                        d.channel.close();
                    }
                    return n;
                }).get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("drop did not complete on " + loops[i], e);
            }
        }
        return total;
    }

    /**
     * Publishes {@code ratePerSecond} messages a second, spread round-robin over connected devices, until
     * {@link #stopPublishing}. One 10 ms task per event loop over that loop's devices.
     */
    public void startPublishing(double ratePerSecond, int qos, int bytes) {
        double perLoop = ratePerSecond / loops.length;
        for (int i = 0; i < loops.length; i++) {
            List<Device> mine = devicesByLoop.get(i);
            RateDriver driver = new RateDriver(mine, perLoop, qos, bytes);
            publishTasks.add(loops[i].scheduleAtFixedRate(driver, 10, 10, TimeUnit.MILLISECONDS));
        }
    }

    public void stopPublishing() {
        publishTasks.forEach(t -> t.cancel(false));
        publishTasks.clear();
    }

    /** Budget-based publisher over one loop's devices; runs on that loop. */
    private final class RateDriver implements Runnable {
        private final List<Device> mine;
        private final double perSecond;
        private final int qos;
        private final int bytes;
        private long last = System.nanoTime();
        private double budget;
        private int cursor;

        RateDriver(List<Device> mine, double perSecond, int qos, int bytes) {
            this.mine = mine;
            this.perSecond = perSecond;
            this.qos = qos;
            this.bytes = bytes;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            budget = Math.min(budget + perSecond * (now - last) / 1e9, Math.max(1, perSecond));
            last = now;
            int size = mine.size();
            for (int probes = 0; budget >= 1 && probes < size; probes++) {
                Device d = mine.get(cursor);
                cursor = cursor + 1 == size ? 0 : cursor + 1;
                if (d.state == Device.State.CONNECTED && d.channel != null) {
                    traffic.publish(d, d.channel, Traffic.TELEMETRY, bytes, qos, now);
                    d.channel.flush();
                    budget -= 1;
                }
            }
        }
    }

    /** Stops reconnecting, closes every connection and the event loops; waits at most about 15 s. */
    @Override
    public void close() {
        stopping = true;
        if (health != null) {
            health.close();
        }
        stopPublishing();
        connector.stop();
        if (profile.numbered()) {
            writeSequences(Path.of(profile.sequenceFile() + "." + first));
        }
        for (int i = 0; i < loops.length; i++) {
            List<Device> mine = devicesByLoop.get(i);
            loops[i].execute(() -> {
                for (Device d : mine) {
                    if (d.timer != null) {
                        d.timer.cancel(false);
                        d.timer = null;
                    }
                    if (d.channel != null) {
                        d.channel.close();
                    }
                }
            });
        }
        group.shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS).awaitUninterruptibly(15, TimeUnit.SECONDS);
        payload.release();
    }

    /**
     * One line per device: client id, how many QoS 1 messages it numbered, and the numbers still waiting for their
     * PUBACK (comma-separated, or "-"); every other number up to the count was acknowledged. Read on each device's
     * event loop, after publishing stopped, so a PUBACK arriving later is not claimed.
     */
    private void writeSequences(Path file) {
        List<Future<StringBuilder>> parts = new ArrayList<>();
        for (int i = 0; i < loops.length; i++) {
            List<Device> mine = devicesByLoop.get(i);
            parts.add(loops[i].submit(() -> {
                StringBuilder b = new StringBuilder(mine.size() * 24);
                for (Device d : mine) {
                    b.append(d.clientId).append(' ').append(d.lastSequence).append(' ');
                    Outbox o = d.outbox;
                    int listed = 0;
                    for (int k = 0; k < o.size(); k++) {
                        if (o.sequence(k) > 0) {
                            b.append(listed++ > 0 ? "," : "").append(o.sequence(k));
                        }
                    }
                    b.append(listed == 0 ? "-\n" : "\n");
                }
                return b;
            }));
        }
        StringBuilder all = new StringBuilder();
        try {
            for (Future<StringBuilder> part : parts) {
                all.append(part.get(30, TimeUnit.SECONDS));
            }
            Files.writeString(file, all, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the devices' message numbers", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
