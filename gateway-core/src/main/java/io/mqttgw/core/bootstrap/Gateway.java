package io.mqttgw.core.bootstrap;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.admin.AdminServer;
import io.mqttgw.core.admin.HolderOperations;
import io.mqttgw.core.admin.OperatorApi;
import io.mqttgw.core.admin.OperatorCredentials;
import io.mqttgw.core.admission.AdmissionBudget;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.admission.HandshakeBudgetHandler;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.events.LogLevels;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.BuildInfo;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.metrics.NodeMeters;
import io.mqttgw.core.overload.OverloadMonitor;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.mqtt.session.DelayedWills;
import io.mqttgw.core.mqtt.session.WillPublication;
import io.mqttgw.core.mqtt.downlink.DownlinkDispatcher;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.registry.LocalRoutes;
import io.mqttgw.core.registry.LocalSessions;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.OverloadListener;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.RevokedConnectionSweep;
import io.mqttgw.core.tls.SslContextStore;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway node, wired: creates the event loops and the components from providers, connects them, and releases
 * them in order. Each running job has a class of its own: {@link DeviceListeners} (the device ports),
 * {@link OverloadReactions} (the monitor's thread), {@link GracefulDrain} (the thread that stops the node),
 * {@link LiveReconfiguration} with {@link ConfigReloader} (the housekeeping thread), {@link SessionTicketKeys}; what
 * it owns is grouped by {@link DeviceEventLoops} and {@link NodeProviders}. {@link #start} returns once every
 * listener is bound; {@link #close} shuts down gracefully: drain, flush the sink and route store, stop the loops.
 * Started and closed by the caller's thread (close waits; never call it from an event loop).
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final GatewayConfig config;
    private final ConfigReloader reloader;
    private final PrometheusMeterRegistry meters;
    private final GatewayMetrics metrics;
    private final ChannelRegistry registry;
    private final DeviceEventLoops loops;
    /** The housekeeping thread: reloads, certificate and CRL watches, ticket keys, downlink retries. */
    private final ScheduledExecutorService background;
    private final NodeProviders providers;
    private final SslContextStore tls;
    private final OperatorCredentials operators;
    private final NodeMeters nodeMeters;
    private final AdmissionControl admission;
    private final DeviceListeners listeners;
    private final GracefulDrain drain;
    /** MQTT 5.0 wills waiting for their delay; published at shutdown. */
    private DelayedWills wills;
    private SessionTicketKeys ticketKeys;
    private OverloadMonitor overload;
    private OverloadReactions overloadReactions;
    private DownlinkDispatcher downlinkTarget;
    private AdminServer admin;
    private boolean closed;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    private Gateway(GatewayConfig config, Providers found, ConfigReloader.Source source) {
        this.config = config;
        LiveConfig live = new LiveConfig(config);
        if (!"config".equals(config.values().get(CoreConfigKeys.LOG_LEVEL))) {
            LogLevels.apply(config.values().get(CoreConfigKeys.LOG_LEVEL));
        }
        this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters.config().commonTags("node", config.nodeId());
        this.metrics = new GatewayMetrics(meters);
        BuildInfo.register(meters);
        // the operator API pages through the sessions in client-id order; the index costs memory per connection, so it
        // exists only when operations are configured
        this.registry = ChannelRegistry.forThisMachine(config.admin().enabled()
                && config.admin().operations().enabled());
        // certificate files first: a bad file stops startup before any thread, socket or data file exists
        this.tls = config.tls().enabled() ? new SslContextStore(config.tls(),
                new CertificateIdentities(config.identity().source()), metrics) : null;
        this.operators = config.admin().enabled() && config.admin().operations().enabled()
                ? OperatorCredentials.load(config.admin().operations()) : null;
        Transport transport = Transport.choose(config.server().transport());
        AdmissionBudget budget = AdmissionBudget.derive(config.admission(), config.server().effectiveIoThreads(),
                config.overload().eventLoopLag());
        LOG.info("{} (handshake cost {} us, {} I/O threads)", budget.describe(),
                config.admission().handshakeCost().toNanos() / 1000, config.server().effectiveIoThreads());
        this.admission = new AdmissionControl(budget, meters);
        ConfigReloader reloads = null;
        try {
            this.loops = new DeviceEventLoops(transport, config);
            this.background = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "gateway-housekeeping");
                t.setDaemon(true);
                return t;
            });
            ProviderContext context = new ProviderContext(config, meters);
            this.providers = NodeProviders.create(config, found, context);
            Authenticator authenticator = providers.authenticator();
            RouteStore routes = providers.routes();
            UplinkSink sink = providers.sink();
            SessionStore sessions = providers.sessions();
            LiveReconfiguration reconfiguration = new LiveReconfiguration(config.server().effectiveIoThreads(),
                    admission, authenticator, () -> overload);
            reloads = source == null || source.file() == null ? null : new ConfigReloader(source, found, live,
                    reconfiguration::apply, meters, reconfiguration::authenticatorReloads);
            ByteBufAllocator allocator = "adaptive".equals(config.server().allocator())
                    ? new AdaptiveByteBufAllocator() : PooledByteBufAllocator.DEFAULT;
            this.nodeMeters = new NodeMeters(meters, allocator, loops.io());
            this.listeners = new DeviceListeners(config, transport, allocator, loops.accept(), loops.io(), admission);
            this.drain = new GracefulDrain(config.nodeId(), config.shutdown(), registry, listeners);
            NodeGauges.register(config, transport, meters, metrics, registry, listeners, operators);

            routes.start(new LocalRoutes(registry));
            sessions.start(new LocalSessions(registry));
            downlinkTarget = new DownlinkDispatcher(registry, config.downlink(), metrics, background, sessions,
                    config.mqtt().topicLimits());
            EventLog events = new EventLog(config.lifecycleLogRate());
            SessionServices services = new SessionServices(config, metrics, registry, authenticator, routes, sink,
                    events, SessionServices.newEpochSource(), admission, sessions, live);
            this.wills = services.wills();
            DelayedWillStore.of(sessions).ifPresent(fleet -> fleet.start(new WillPublication(metrics, sink)));
            HandshakeBudgetHandler handshakeBudget = new HandshakeBudgetHandler(admission);
            LOG.info("starting node {}: transport {}, {} I/O threads, allocator {}, auth {}, routes {}, uplink {}, "
                            + "downlink {}", config.nodeId(), transport.name(), config.server().effectiveIoThreads(),
                    config.server().allocator(), config.auth().provider(), config.routesProvider(),
                    config.uplinkSink(), config.downlinkSource());
            if (tls != null && !config.tls().ticketKeyRotation().isZero()) {
                ticketKeys = SessionTicketKeys.start(config, tls, found, context, background, meters);
            }
            if (tls != null) {
                listeners.bindTls(new DeviceChannelInitializer("tls", services, tls, handshakeBudget,
                        config.tls().proxyProtocol()));
                // connections a reloaded CRL revokes are closed, paced, each on its own loop
                tls.onRevocationReload(new RevokedConnectionSweep(registry, events, background,
                        config.tls().crlDisconnectRate(), config.mqtt().connectTimeout().plus(config.auth().timeout())
                                .plusSeconds(1)));
                tls.watch(background);
            }
            if (config.tcp().enabled()) {
                listeners.bindTcp(new DeviceChannelInitializer("tcp", services, null, null,
                        config.tcp().proxyProtocol()));
            }
            // answers other nodes' forwarded operations whether or not this node has an operations listener itself
            OperationForwarding forwarding = routes.forwarding().orElse(null);
            if (forwarding != null) {
                forwarding.serve(new HolderOperations(registry, downlinkTarget, sessions, metrics));
            }
            if (config.admin().enabled()) {
                admin = new AdminServer(config.admin(), meters, this::notReadyReason,
                        providers.healthChecks(tls != null ? tls.crlHealth()
                                : new HealthCheck("tls-crl", () -> HealthStatus.UP)),
                        downlinkTarget, operators, events, config.mqtt().topicLimits(),
                        new OperatorApi(config.nodeId(), registry, routes, sessions, metrics,
                                config.mqtt().maxClientIdLength(), reloads == null ? null : this::reload,
                                this::drain, forwarding, config.downlink().retryInterval()
                                        .multipliedBy(config.downlink().maxRetries() + 1L)));
            }
            providers.downlink().start(downlinkTarget);
            if (config.overload().enabled()) {
                List<OverloadListener> reactions = new ArrayList<>();
                overloadReactions = new OverloadReactions(config.overload(), admission, listeners);
                reactions.add(overloadReactions);
                ServiceLoader.load(OverloadListener.class, Gateway.class.getClassLoader()).forEach(reactions::add);
                overload = new OverloadMonitor(config.overload(), loops.io(), admission, sink::pressure,
                        routes::pressure, reactions, meters);
                overload.start();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while binding listeners", e);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        } catch (Exception e) {
            // a checked exception Netty's sync() rethrows undeclared; bind failures come named by their listener
            close();
            throw new IllegalStateException("cannot start the listeners: " + e, e);
        }
        this.reloader = reloads;
        Duration watch = config.values().get(CoreConfigKeys.CONFIG_WATCH_INTERVAL);
        if (reloader != null && !watch.isZero()) {
            // on the housekeeping thread, where POST /config/reload runs too: one reload at a time
            new ConfigFileWatcher(source.file(), () -> reloader.reload("file-watch")).start(background, watch);
        }
        listeners.started();
        LOG.info("node {} ready: {}, admin {}", config.nodeId(), listeners,
                admin == null ? "off" : config.admin().bind() + ":" + admin.port());
    }

    /** Starts a node; returns when its listeners are bound. Without a config file there is nothing to reload. */
    public static Gateway start(GatewayConfig config, Providers providers) {
        return new Gateway(config, providers, null);
    }

    /**
     * Starts a node whose configuration came from {@code file} (and the environment and system properties, read
     * again as given here on a reload); {@link #reload} re-reads them.
     */
    public static Gateway start(GatewayConfig config, Providers providers, Path file, Map<String, String> environment,
                                Properties systemProperties) {
        return new Gateway(config, providers, new ConfigReloader.Source(file, Map.copyOf(environment),
                (Properties) systemProperties.clone()));
    }

    /**
     * Re-reads the config file for {@code who} on the housekeeping thread and applies what may change at runtime;
     * completes with what happened (a refused file included). Fails when the node was started without a file.
     */
    public CompletableFuture<OperatorApi.ReloadReport> reload(String who) {
        if (reloader == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("started without a config file"));
        }
        return CompletableFuture.supplyAsync(() -> reloader.reload(who), background);
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

    /**
     * Why this node should get no new devices now, or null when it should: what {@code /health/ready} answers. Any
     * thread; reads volatile state.
     */
    private String notReadyReason() {
        if (drain != null && drain.leaving()) {
            return "draining";
        }
        if (overloadReactions != null && overloadReactions.overloaded()) {
            return "overloaded";
        }
        return listeners != null && listeners.accepting() ? null : "listeners closed";
    }

    /** Whether the node is overloaded now (the monitor's view). */
    public boolean overloaded() {
        return overload != null && overload.overloaded();
    }

    public AdmissionControl admission() {
        return admission;
    }

    /** Where downlink messages for this node's devices go in (also behind the admin endpoint's /downlink). */
    public DownlinkTarget downlink() {
        return downlinkTarget;
    }

    public int tlsPort() {
        return listeners.tlsPort();
    }

    /** Listening sockets of the TLS and TCP listeners now: one each, or one per I/O thread with SO_REUSEPORT. */
    int listeningSockets() {
        return listeners.sockets();
    }

    public int tcpPort() {
        return listeners.tcpPort();
    }

    /** Port of the admin listener with the read-only endpoints. */
    public int adminPort() {
        return admin == null ? -1 : admin.port();
    }

    /** Port of the separate admin operations listener, or -1 when there is none. */
    public int adminOperationsPort() {
        return admin == null ? -1 : admin.operationsPort();
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
        return providers.sink();
    }

    public RouteStore routes() {
        return providers.routes();
    }

    public SessionStore sessions() {
        return providers.sessions();
    }

    /**
     * Checks the certificate files now instead of waiting for the reload interval; true if a new context is in place.
     */
    public boolean reloadTls() {
        return tls != null && tls.reloadIfChanged();
    }

    /**
     * Drains the node as SIGTERM does, on a thread of its own, and answers at once: {@code /health/ready} 503 while
     * devices are still accepted for {@code shutdown.ready-grace}, then the devices closed at
     * {@code shutdown.drain-rate}; then, with {@code exit}, the node {@link #close closes} (the process exits: see
     * {@link #terminated}), else it stays up, not ready, until closed.
     */
    public OperatorApi.DrainReport drain(String operator, boolean exit) {
        return drain.start(operator, exit, this::close);
    }

    /** Completes when the node has stopped: closed by its owner, or by itself after a drain that exits. */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** Graceful shutdown; also releases what a start that failed half way had already created. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = drain != null ? drain.finishBeforeClose()
                : System.nanoTime() + config.shutdown().timeout().toNanos();
        LOG.info("shutting down node {}", config.nodeId());
        if (overload != null) {
            overload.close();
        }
        if (tls != null) {
            tls.stopWatching();
        }
        if (ticketKeys != null) {
            ticketKeys.close();
        }
        if (providers != null) {
            providers.stopDownlink();
        }
        // MQTT 5.0 wills waiting for their delay: nobody on this node will see their devices come back
        if (wills != null) {
            wills.publishAll();
        }
        if (providers != null) {
            providers.flushAndClose(deadline);
        }
        if (loops != null) {
            loops.shutdown();
        }
        if (tls != null) {
            tls.close();
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
        terminated.complete(null);
    }
}
