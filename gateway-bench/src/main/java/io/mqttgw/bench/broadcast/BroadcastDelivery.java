package io.mqttgw.bench.broadcast;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.Providers;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * End to end, without TLS: the time from {@code DownlinkTarget.broadcast} until every connected device has the
 * PUBLISH (and, at QoS 1, until the gateway has every PUBACK), and the gateway process's CPU time and heap
 * allocation per receiver. Two processes, because one process may hold only 20,000 open files on the benchmark
 * machine: this one runs a real gateway (public API: {@link Gateway#start}, plain TCP listener on 127.0.0.1,
 * discard sink, admin endpoint off, overload protection off, {@code acl.subscribe} extended by the broadcast filter)
 * and starts a second JVM ({@code devices} mode) that connects {@code --devices}
 * plain-TCP MQTT clients subscribed to {@code fleet/+/firmware}, answers every QoS 1 PUBLISH with PUBACK, and
 * reports the count and the {@link System#nanoTime} of the first and last PUBLISH it read. Both processes read
 * the same clock ({@code CLOCK_MONOTONIC} on Linux), so the two are comparable.
 *
 * <pre>
 * java -cp 'gateway-bench/target/bench/lib/*' io.mqttgw.bench.broadcast.BroadcastDelivery \
 *   --devices 18000 --rounds 5 --warmup 3 --payload 500 --qos 1 --broadcast-rate 50000 --io-threads 0 \
 *   --client-threads 1 --client-jvm-options '-Xmx1g -XX:+UseG1GC'
 * </pre>
 * Per round (after a GC and a one-second pause): handed to all (the broadcast's stage completes: every receiver's
 * send ran on its event loop), the last PUBLISH read by a device, all acknowledged (the gateway counted every
 * PUBACK as delivered; QoS 1 only), and the gateway process's CPU time and heap allocation over the round.
 */
public final class BroadcastDelivery {
    private static final String FILTER = "fleet/+/firmware";
    private static final String TOPIC = "fleet/all/firmware";

    private BroadcastDelivery() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        if (args.length > 0 && args[0].equals("devices")) {
            Devices.run(Integer.parseInt(opts.get("port")), Integer.parseInt(opts.getOrDefault("devices", "1000")),
                    Integer.parseInt(opts.getOrDefault("connect-in-flight", "200")),
                    Integer.parseInt(opts.getOrDefault("client-threads", "1")));
        } else {
            runGateway(opts);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 < args.length) {
                opts.put(args[i].substring(2), args[++i]);
            }
        }
        return opts;
    }

    private static void runGateway(Map<String, String> opts) throws Exception {
        int devices = Integer.parseInt(opts.getOrDefault("devices", "1000"));
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "5"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "3"));
        int payload = Integer.parseInt(opts.getOrDefault("payload", "500"));
        int qos = Integer.parseInt(opts.getOrDefault("qos", "1"));
        String rate = opts.getOrDefault("broadcast-rate", "50000");
        String ioThreads = opts.getOrDefault("io-threads", "0");
        String clientJvm = opts.getOrDefault("client-jvm-options", "-Xmx1g -XX:+UseG1GC");

        Properties p = new Properties();
        p.setProperty("mqttgw.node.id", "broadcast-bench");
        p.setProperty("mqttgw.server.io-threads", ioThreads);
        p.setProperty("mqttgw.listener.tls.enabled", "false");
        p.setProperty("mqttgw.listener.tcp.enabled", "true");
        p.setProperty("mqttgw.listener.tcp.bind", "127.0.0.1");
        p.setProperty("mqttgw.listener.tcp.port", "0");
        p.setProperty("mqttgw.auth.certificate.allow-without-certificate", "true");
        p.setProperty("mqttgw.admin.enabled", "false");
        p.setProperty("mqttgw.uplink.sink", "discard");
        p.setProperty("mqttgw.acl.subscribe", "devices/{client-id}/#," + FILTER);
        p.setProperty("mqttgw.downlink.broadcast-rate", rate);
        p.setProperty("mqttgw.admission.connection-rate", "100000");
        p.setProperty("mqttgw.overload.enabled", "false");
        p.setProperty("mqttgw.log.lifecycle-rate", "1");
        Providers providers = Providers.discover();
        Gateway gateway = Gateway.start(Gateway.configure(null, providers, Map.of(), p), providers);
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "gateway: plain TCP on 127.0.0.1:%d, io-threads %s, broadcast-rate %s/s, "
                + "JVM %s, max heap %d MiB%n", gateway.tcpPort(), ioThreads, rate,
                System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20);

        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of(clientJvm.trim().split("\\s+")));
        command.addAll(List.of("-Dio.netty.leakDetection.level=disabled", "-cp",
                System.getProperty("java.class.path"), BroadcastDelivery.class.getName(), "devices",
                "--port", String.valueOf(gateway.tcpPort()), "--devices", String.valueOf(devices),
                "--client-threads", opts.getOrDefault("client-threads", "1")));
        Process client = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader fromClient = new BufferedReader(new InputStreamReader(client.getInputStream(),
                StandardCharsets.UTF_8));
        PrintWriter toClient = new PrintWriter(client.getOutputStream(), true, StandardCharsets.UTF_8);
        try {
            long rampStart = System.nanoTime();
            String ready = fromClient.readLine();
            if (ready == null || !ready.startsWith("READY")) {
                throw new IllegalStateException("client: " + ready);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (gateway.registry().size() < devices && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            out.printf(Locale.ROOT, "%s; gateway holds %d sessions (ramp %.1f s)%n", ready,
                    gateway.registry().size(), (System.nanoTime() - rampStart) / 1e9);
            if (gateway.registry().size() != devices) {
                throw new IllegalStateException("not every device connected");
            }
            byte[] bytes = new byte[payload];
            java.util.Arrays.fill(bytes, (byte) 'x');
            DownlinkMessage message = new DownlinkMessage(null, TOPIC, qos, false, bytes);
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            out.println("round | handed to all (ms) | last PUBLISH read by a device (ms) | all acknowledged (ms) "
                    + "| received | gateway CPU (ms) | CPU per receiver (us) | heap allocated per receiver (B)");
            for (int round = 1 - warmup; round <= rounds; round++) {
                toClient.println("RESET");
                expect(fromClient, "OK");
                System.gc();
                Thread.sleep(1000);
                double deliveredBefore = gateway.metrics().downlinkOutcomes(Outcome.DELIVERED);
                Map<Long, Long> allocBefore = allocated(threads);
                long cpuBefore = os.getProcessCpuTime();
                long mainCpuBefore = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                CompletableFuture<Long> handed = gateway.downlink().broadcast(message).toCompletableFuture()
                        .thenApply(n -> System.nanoTime());
                // broadcast() itself (the list of receivers) runs here, as on a caller's thread in the gateway;
                // the polling below is the harness's, and its CPU is taken out of the process's
                long mainCpuCall = threads.getCurrentThreadCpuTime() - mainCpuBefore;
                long doneAt = 0;
                long stop = t0 + TimeUnit.SECONDS.toNanos(60);
                if (qos > 0) {
                    while (gateway.metrics().downlinkOutcomes(Outcome.DELIVERED) < deliveredBefore + devices
                            && System.nanoTime() < stop) {
                        Thread.sleep(0, 500_000);
                    }
                    doneAt = System.nanoTime();
                }
                long handedAt = handed.get(60, TimeUnit.SECONDS);
                long cpu = os.getProcessCpuTime() - cpuBefore
                        - (threads.getCurrentThreadCpuTime() - mainCpuBefore - mainCpuCall);
                long heap = allocatedSince(threads, allocBefore);
                toClient.println("REPORT");
                String[] report = expect(fromClient, "REPORT").split(" ");
                long received = Long.parseLong(report[1]);
                long last = Long.parseLong(report[3]);
                out.printf(Locale.ROOT, "%s | %.1f | %.1f | %s | %d | %.0f | %.2f | %.0f%n",
                        round <= 0 ? "warm-up" : String.valueOf(round),
                        (handedAt - t0) / 1e6, received == 0 ? Double.NaN : (last - t0) / 1e6,
                        qos > 0 ? String.format(Locale.ROOT, "%.1f", (doneAt - t0) / 1e6) : "-", received,
                        cpu / 1e6, cpu / 1e3 / devices,
                        (double) heap / devices);
                if (received != devices) {
                    out.println("  (not every device received it)");
                }
            }
            out.println("gateway CPU: this process's CPU time (I/O threads, pacer, GC, JIT) minus the harness "
                    + "thread's polling; heap: bytes allocated by all of this process's threads (polling included)");
            toClient.println("QUIT");
            client.waitFor(30, TimeUnit.SECONDS);
        } finally {
            client.destroy();
            gateway.close();
        }
    }

    private static String expect(BufferedReader in, String prefix) throws IOException {
        String line = in.readLine();
        if (line == null || !line.startsWith(prefix)) {
            throw new IllegalStateException("client said " + line + ", expected " + prefix);
        }
        return line;
    }

    /** Heap bytes allocated so far by every live thread of this process, by thread id. */
    private static Map<Long, Long> allocated(com.sun.management.ThreadMXBean threads) {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }

    private static long allocatedSince(com.sun.management.ThreadMXBean threads, Map<Long, Long> before) {
        long total = 0;
        for (Map.Entry<Long, Long> e : allocated(threads).entrySet()) {
            total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }

    /** The device side: plain-TCP MQTT clients on one event loop, counting the PUBLISHes they read. */
    static final class Devices extends SimpleChannelInboundHandler<MqttMessage> {
        private static final MqttFixedHeader PUBACK = new MqttFixedHeader(MqttMessageType.PUBACK, false,
                MqttQoS.AT_MOST_ONCE, false, 2);

        private final LongAdder subscribed = new LongAdder();
        private final LongAdder received = new LongAdder();
        private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);
        private final Semaphore connecting;

        private Devices(Semaphore connecting) {
            super(false);
            this.connecting = connecting;
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        static void run(int port, int devices, int inFlight, int threads) throws Exception {
            boolean epoll = Epoll.isAvailable();
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, io);
            Semaphore connecting = new Semaphore(inFlight);
            Devices handler = new Devices(connecting);
            Bootstrap b = new Bootstrap().group(group)
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new MqttDecoder(), MqttEncoder.INSTANCE, handler);
                        }
                    });
            InetSocketAddress gateway = new InetSocketAddress("127.0.0.1", port);
            List<Channel> channels = new ArrayList<>(devices);
            for (int i = 0; i < devices; i++) {
                connecting.acquire();
                String id = "bc-" + i;
                Channel ch = b.connect(gateway).addListener(f -> {
                    if (f.isSuccess()) {
                        Channel c = ((io.netty.channel.ChannelFuture) f).channel();
                        c.writeAndFlush(MqttMessageBuilders.connect().clientId(id)
                                .protocolVersion(MqttVersion.MQTT_3_1_1).cleanSession(true)
                                .keepAlive(0).build());
                    } else {
                        System.err.println("connect failed: " + f.cause());
                        connecting.release();
                    }
                }).channel();
                channels.add(ch);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (handler.subscribed.sum() < devices && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            PrintStream out = System.out;
            out.println("READY " + handler.subscribed.sum() + " devices subscribed to " + FILTER
                    + (epoll ? " (epoll)" : " (nio)"));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("QUIT"); line = in.readLine()) {
                if (line.equals("RESET")) {
                    handler.received.reset();
                    handler.first.set(Long.MAX_VALUE);
                    handler.last.set(Long.MIN_VALUE);
                    out.println("OK");
                } else if (line.equals("REPORT")) {
                    // the gateway's last PUBACK can come before this loop has read every PUBLISH (QoS 0)
                    long stop = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    long before = -1;
                    while (handler.received.sum() != before && System.nanoTime() < stop) {
                        before = handler.received.sum();
                        Thread.sleep(200);
                    }
                    out.println("REPORT " + handler.received.sum() + " " + handler.first.get() + " "
                            + handler.last.get());
                }
                out.flush();
            }
            for (Channel ch : channels) {
                ch.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MqttMessage msg) {
            try {
                switch (msg.fixedHeader().messageType()) {
                    case CONNACK -> {
                        if (((MqttConnAckMessage) msg).variableHeader().connectReturnCode()
                                != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
                            System.err.println("refused: " + msg);
                            connecting.release();
                            ctx.close();
                            return;
                        }
                        ctx.writeAndFlush(MqttMessageBuilders.subscribe().messageId(1)
                                .addSubscription(MqttQoS.AT_LEAST_ONCE, FILTER).build());
                    }
                    case SUBACK -> {
                        int granted = ((io.netty.handler.codec.mqtt.MqttSubAckMessage) msg).payload()
                                .grantedQoSLevels().get(0);
                        if (granted > 2) {
                            System.err.println("subscription refused: " + granted);
                            connecting.release();
                            return;
                        }
                        subscribed.increment();
                        connecting.release();
                    }
                    case PUBLISH -> {
                        long now = System.nanoTime();
                        received.increment();
                        first.accumulateAndGet(now, Math::min);
                        last.accumulateAndGet(now, Math::max);
                        MqttPublishMessage publish = (MqttPublishMessage) msg;
                        if (publish.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE) {
                            ctx.writeAndFlush(new MqttMessage(PUBACK,
                                    MqttMessageIdVariableHeader.from(publish.variableHeader().packetId())),
                                    ctx.voidPromise());
                        }
                    }
                    default -> {
                    }
                }
            } finally {
                io.netty.util.ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("device error: " + cause);
            ctx.close();
        }
    }
}
