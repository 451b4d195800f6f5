package io.mqttgw.core.bootstrap;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.AdminServer;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.metrics.NodeMeters;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.protocol.DeviceDisconnector;
import io.mqttgw.core.protocol.DownlinkDispatcher;
import io.mqttgw.core.protocol.DisconnectReason;
import io.mqttgw.core.protocol.SessionServices;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.registry.LocalRoutes;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.tls.CertificateExpiryMeter;
import io.mqttgw.core.tls.SslContextStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway node: listeners, event loops, components from providers, admin endpoint. {@link #start} returns once
 * every listener is bound; {@link #close} shuts down gracefully: stop accepting, close sessions at
 * {@code shutdown.close-rate}, flush the sink and route store, stop the loops.
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final GatewayConfig config;
    private final PrometheusMeterRegistry meters;
    private final GatewayMetrics metrics;
    private final ChannelRegistry registry;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final ScheduledExecutorService background;
    private final Authenticator authenticator;
    private final RouteStore routes;
    private final UplinkSink sink;
    private final DownlinkSource downlink;
    private final SslContextStore tls;
    private final NodeMeters nodeMeters;
    private final List<Channel> listeners = new ArrayList<>();
    private Channel tlsListener;
    private Channel tcpListener;
    private AdminServer admin;
    private volatile boolean accepting;
    private boolean closed;

    private Gateway(GatewayConfig config, Providers providers) {
        this.config = config;
        this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters.config().commonTags("node", config.nodeId());
        this.metrics = new GatewayMetrics(meters);
        this.registry = ChannelRegistry.forThisMachine();
        // certificate files first: a bad file stops startup before any thread, socket or data file exists
        this.tls = config.tls().enabled() ? new SslContextStore(config.tls(), metrics) : null;
        Transport transport = Transport.choose(config.server().transport());
        try {
            this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("mqtt-accept", true),
                    transport.ioHandlerFactory());
            this.ioGroup = new MultiThreadIoEventLoopGroup(config.server().effectiveIoThreads(),
                    new DefaultThreadFactory("mqtt-io", true), transport.ioHandlerFactory());
            this.background = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "gateway-housekeeping");
                t.setDaemon(true);
                return t;
            });
            ProviderContext context = new ProviderContext(config, meters);
            this.authenticator = providers.authenticator(config.auth().provider()).create(context);
            this.routes = providers.routeStore(config.routesProvider()).create(context);
            this.sink = providers.uplinkSink(config.uplinkSink()).create(context);
            this.downlink = providers.downlinkSource(config.downlinkSource()).create(context);
            ByteBufAllocator allocator = "adaptive".equals(config.server().allocator())
                    ? new AdaptiveByteBufAllocator() : PooledByteBufAllocator.DEFAULT;
            this.nodeMeters = new NodeMeters(meters, allocator, ioGroup);
            metrics.gauge("mqttgw.connections.open", "MQTT sessions open (CONNACK accepted)", registry::size);
            if (tls != null) {
                new CertificateExpiryMeter(registry, config.identity().expiryWarning(), meters);
            }

            routes.start(new LocalRoutes(registry));
            SessionServices services = new SessionServices(config, metrics, registry, authenticator, routes, sink,
                    new EventLog(config.lifecycleLogRate()), SessionServices.newEpochSource());
            LOG.info("starting node {}: transport {}, {} I/O threads, allocator {}, auth {}, routes {}, uplink {}, "
                            + "downlink {}", config.nodeId(), transport.name(), config.server().effectiveIoThreads(),
                    config.server().allocator(), config.auth().provider(), config.routesProvider(),
                    config.uplinkSink(), config.downlinkSource());
            if (tls != null) {
                tlsListener = bind(transport, allocator, config.tls().bind(), config.tls().port(),
                        new DeviceChannelInitializer("tls", services, tls));
                tls.watch(background);
            }
            if (config.tcp().enabled()) {
                tcpListener = bind(transport, allocator, config.tcp().bind(), config.tcp().port(),
                        new DeviceChannelInitializer("tcp", services, null));
            }
            if (config.admin().enabled()) {
                admin = new AdminServer(config.admin().bind(), config.admin().port(), meters, () -> accepting,
                        List.of(new HealthCheck("uplink", sink::health), new HealthCheck("routes", routes::health),
                                new HealthCheck("auth", authenticator::health),
                                new HealthCheck("downlink", downlink::health)));
            }
            downlink.start(new DownlinkDispatcher(registry, metrics));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while binding listeners", e);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        } catch (Exception e) {
            // Netty's sync() rethrows a bind failure (java.net.BindException) without declaring it
            close();
            throw new IllegalStateException("cannot bind a listener (tls " + config.tls().bind() + ":"
                    + config.tls().port() + ", tcp " + config.tcp().bind() + ":" + config.tcp().port() + ", admin "
                    + config.admin().bind() + ":" + config.admin().port() + "): " + e, e);
        }
        accepting = true;
        LOG.info("node {} ready: tls {}, tcp {}, admin {}", config.nodeId(), describe(tlsListener),
                describe(tcpListener), admin == null ? "off" : config.admin().bind() + ":" + admin.port());
    }

    /** Starts a node; returns when its listeners are bound. */
    public static Gateway start(GatewayConfig config, Providers providers) {
        return new Gateway(config, providers);
    }

    /**
     * Reads and validates a configuration: the file (or none), environment variables and system properties, with
     * the keys of core and of every provider found.
     */
    public static GatewayConfig configure(Path file, Providers providers, Map<String, String> environment,
                                          Properties systemProperties) {
        return GatewayConfig.from(new ConfigLoader(ConfigLoader.withCoreKeys(providers.configKeys()),
                providers.openPrefixes(), environment, systemProperties).load(file));
    }

    private Channel bind(Transport transport, ByteBufAllocator allocator, String host, int port,
                         DeviceChannelInitializer initializer) throws InterruptedException {
        GatewayConfig.Server s = config.server();
        Channel ch = new ServerBootstrap()
                .group(acceptGroup, ioGroup)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, s.backlog())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(s.writeBufferLowWaterMark(), s.writeBufferHighWaterMark()))
                .childHandler(initializer)
                .bind(host, port).sync().channel();
        listeners.add(ch);
        return ch;
    }

    private static String describe(Channel listener) {
        return listener == null ? "off" : String.valueOf(listener.localAddress());
    }

    public int tlsPort() {
        return port(tlsListener);
    }

    public int tcpPort() {
        return port(tcpListener);
    }

    public int adminPort() {
        return admin == null ? -1 : admin.port();
    }

    private static int port(Channel listener) {
        return listener == null ? -1 : ((InetSocketAddress) listener.localAddress()).getPort();
    }

    public GatewayConfig config() {
        return config;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    public ChannelRegistry registry() {
        return registry;
    }

    public UplinkSink sink() {
        return sink;
    }

    public RouteStore routes() {
        return routes;
    }

    /** Checks the certificate files now instead of waiting for the reload interval; true if a new context is in place. */
    public boolean reloadTls() {
        return tls != null && tls.reloadIfChanged();
    }

    /** Graceful shutdown; also releases what a start that failed half way had already created. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        accepting = false;
        long deadline = System.nanoTime() + config.shutdown().timeout().toNanos();
        LOG.info("shutting down node {}: {} sessions to close at {}/s", config.nodeId(), registry.size(),
                config.shutdown().closeRatePerSecond());
        for (Channel l : listeners) {
            l.close().awaitUninterruptibly();
        }
        if (tls != null) {
            tls.stopWatching();
        }
        closeSessions(deadline);
        if (downlink != null) {
            downlink.close();
        }
        try {
            if (sink != null) {
                sink.close().toCompletableFuture().get(Math.max(deadline - System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            }
            if (routes != null) {
                routes.close().toCompletableFuture().get(Math.max(deadline - System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("flushing the sink and route store at shutdown did not finish: {}", e.toString());
        }
        if (authenticator != null) {
            authenticator.close();
        }
        for (EventLoopGroup group : new EventLoopGroup[] {ioGroup, acceptGroup}) {
            if (group != null) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            }
        }
        if (background != null) {
            background.shutdownNow();
        }
        if (admin != null) {
            admin.close();
        }
        if (nodeMeters != null) {
            nodeMeters.close();
        }
        meters.close();
        LOG.info("node {} stopped", config.nodeId());
    }

    /** Closes registered sessions in slices of 10 ms so a large node drains at the configured rate, not at once. */
    private void closeSessions(long deadline) {
        List<Channel> open = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, registry.size()));
        registry.forEach(open::add);
        int perSlice = Math.max(1, config.shutdown().closeRatePerSecond() / 100);
        int i = 0;
        while (i < open.size() && System.nanoTime() < deadline) {
            long sliceEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
            for (int n = 0; n < perSlice && i < open.size(); n++, i++) {
                Channel ch = open.get(i);
                ch.eventLoop().execute(() -> DeviceDisconnector.close(ch, DisconnectReason.SHUTDOWN));
            }
            long sleep = sliceEnd - System.nanoTime();
            if (sleep > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        for (; i < open.size(); i++) {
            Channel ch = open.get(i);
            ch.eventLoop().execute(() -> DeviceDisconnector.close(ch, DisconnectReason.SHUTDOWN));
        }
    }
}
