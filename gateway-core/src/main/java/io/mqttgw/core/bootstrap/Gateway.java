package io.mqttgw.core.bootstrap;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.admin.OperatorApi;
import io.mqttgw.core.admission.AdmissionBudget;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.events.LogLevels;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.BuildInfo;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.metrics.NodeMeters;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.SslContextStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway node, wired: creates the event loops and the components from providers, connects them, and releases
 * them in order. Each running job has a class of its own: {@link DeviceListeners} with {@link DeviceListenerBinding}
 * (the device ports and their TLS upkeep), {@link SessionPlane}, {@link AdminPlane}, {@link NodeOverload} with
 * {@link OverloadReactions} (the monitor's thread), {@link GracefulDrain} (the thread that stops the node),
 * {@link NodeReloads} with {@link ConfigReloader}, {@link Readiness}; the jobs of the {@link HousekeepingThread} are
 * listed there. What it owns is grouped by {@link DeviceEventLoops} and {@link NodeProviders}. {@link #start} returns
 * once every listener is bound; {@link #close} shuts down gracefully: drain, flush the sink and route store, stop the
 * loops. Started and closed by the caller's thread (close waits; never call it from an event loop).
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final GatewayConfig config;
    private final NodeReloads reloads;
    private final PrometheusMeterRegistry meters;
    private final GatewayMetrics metrics;
    private final ChannelRegistry registry;
    private final DeviceEventLoops loops;
    private final HousekeepingThread housekeeping;
    private final NodeProviders providers;
    private final SslContextStore tls;
    private final AdminPlane admin;
    private final DeviceListenerBinding binding;
    private final NodeMeters nodeMeters;
    private final AdmissionControl admission;
    private final DeviceListeners listeners;
    private final GracefulDrain drain;
    private SessionPlane sessionPlane;
    private NodeOverload overload;
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
        this.admin = new AdminPlane(config);
        Transport transport = Transport.choose(config.server().transport());
        AdmissionBudget budget = AdmissionBudget.derive(config.admission(), config.server().effectiveIoThreads(),
                config.overload().eventLoopLag());
        LOG.info("{} (handshake cost {} us, {} I/O threads)", budget.describe(),
                config.admission().handshakeCost().toNanos() / 1000, config.server().effectiveIoThreads());
        this.admission = new AdmissionControl(budget, meters);
        this.binding = new DeviceListenerBinding(tls);
        try {
            this.loops = new DeviceEventLoops(transport, config);
            this.housekeeping = new HousekeepingThread();
            ScheduledExecutorService background = housekeeping.scheduler();
            ProviderContext context = new ProviderContext(config, meters);
            this.providers = NodeProviders.create(config, found, context);
            LiveReconfiguration reconfiguration = new LiveReconfiguration(config.server().effectiveIoThreads(),
                    admission, providers.authenticator(), () -> overload == null ? null : overload.monitor());
            this.reloads = new NodeReloads(source == null || source.file() == null ? null : new ConfigReloader(source,
                    found, live, reconfiguration::apply, meters, reconfiguration::authenticatorReloads), source,
                    background);
            this.nodeMeters = new NodeMeters(meters, loops.allocator(), loops.io());
            this.listeners = new DeviceListeners(config, transport, loops.allocator(), loops.accept(), loops.io(),
                    admission);
            this.drain = new GracefulDrain(config.nodeId(), config.shutdown(), registry, listeners);
            NodeGauges.register(config, transport, meters, metrics, registry, listeners, admin.operators());
            EventLog events = new EventLog(config.lifecycleLogRate());
            sessionPlane = new SessionPlane(config, metrics, registry, providers, admission, live, events,
                    background);
            LOG.info("starting node {}: transport {}, {} I/O threads, allocator {}, auth {}, routes {}, uplink {}, "
                            + "downlink {}", config.nodeId(), transport.name(), config.server().effectiveIoThreads(),
                    config.server().allocator(), config.auth().provider(), config.routesProvider(),
                    config.uplinkSink(), config.downlinkSource());
            binding.bind(config, new DeviceListenerBinding.Pipelines(listeners, sessionPlane.services(), admission),
                    new DeviceListenerBinding.TlsUpkeep(background, found, context, meters, registry, events));
            admin.start(new AdminPlane.NodeParts(meters, metrics, registry, providers, tls, sessionPlane.downlink(),
                    events), new AdminPlane.Controls(new Readiness(drain, listeners, () -> overload),
                    reloads.available() ? this::reload : null, this::drain));
            providers.downlink().start(sessionPlane.downlink());
            overload = NodeOverload.start(config.overload(), admission, listeners, loops.io(), providers.sink(),
                    providers.routes(), meters);
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
        reloads.watch(config.values().get(CoreConfigKeys.CONFIG_WATCH_INTERVAL));
        listeners.started();
        LOG.info("node {} ready: {}, admin {}", config.nodeId(), listeners, admin);
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
        return reloads.reload(who);
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

    /** Whether the node is overloaded now (the monitor's view). */
    public boolean overloaded() {
        return overload != null && overload.overloaded();
    }

    public AdmissionControl admission() {
        return admission;
    }

    /** Where downlink messages for this node's devices go in (also behind the admin endpoint's /downlink). */
    public DownlinkTarget downlink() {
        return sessionPlane.downlink();
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
        return admin.port();
    }

    /** Port of the separate admin operations listener, or -1 when there is none. */
    public int adminOperationsPort() {
        return admin.operationsPort();
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
        binding.stopUpkeep();
        if (providers != null) {
            providers.stopDownlink();
        }
        if (sessionPlane != null) {
            sessionPlane.publishWaitingWills();
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
        if (housekeeping != null) {
            housekeeping.close();
        }
        admin.close();
        if (nodeMeters != null) {
            nodeMeters.close();
        }
        meters.close();
        LOG.info("node {} stopped", config.nodeId());
        terminated.complete(null);
    }
}
