package io.mqttgw.core.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.ListenerBindException;
import io.mqttgw.core.eventloop.ClosingIoEventLoopGroup;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.topic.TopicLimits;
import io.mqttgw.core.spi.DownlinkTarget;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin plane's HTTP listeners: the read-only one on {@code admin.bind:admin.port} (metrics, liveness,
 * readiness), and the operations ({@code /downlink}, ...) either on it or, with {@code admin.operations.port}, on a
 * listener of their own (optionally with operator mutual TLS). Operations exist only when a credential is
 * configured, and are authenticated by {@link OperatorAuthHandler}. All listeners share one thread of their own,
 * so scrapes and operations never take time from device event loops and stay answerable when those are busy.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

    private final EventLoopGroup group;
    private Channel readOnlyChannel;
    private Channel operationsChannel;

    /**
     * @param notReadyReason why the node should get no new devices now (overloaded, listeners closed, shutting
     *                       down), or null when it should
     * @param operators      the operator credentials, or null when operations are not configured
     * @param api            what the operator API's client, session and reload endpoints reach
     */
    public AdminServer(GatewayConfig.Admin config, PrometheusMeterRegistry registry, Supplier<String> notReadyReason,
                       List<HealthCheck> checks, DownlinkTarget downlink, OperatorCredentials operators,
                       EventLog events, TopicLimits topicLimits, OperatorApi api) throws InterruptedException {
        GatewayConfig.Operations ops = config.operations();
        AdminMetrics metrics = new AdminMetrics(registry);
        AdminChannelInitializer.Operations operations = operators == null ? null
                : new AdminChannelInitializer.Operations(operators, new ClientOperationsHandler(api, metrics, events),
                new ConfigReloadHandler(api, metrics, events), new DrainHandler(api, metrics, events),
                new RouteVerifyHandler(api, metrics, events),
                new OperationsHandler(downlink, metrics, events, topicLimits, api), ops.maxPayload(), events);
        String refusal = operators == null
                ? "operations endpoints are off: no operator credential is configured ("
                + CoreConfigKeys.ADMIN_OPERATIONS_TOKEN_FILE.name() + ")"
                : ops.separateListener() ? "operations are served on the operations listener only" : null;
        AdminChannelInitializer.ReadOnly readOnly = new AdminChannelInitializer.ReadOnly(registry,
                new HealthEndpoints(notReadyReason, checks), refusal);
        group = new ClosingIoEventLoopGroup(1, new DefaultThreadFactory("admin-http", true),
                NioIoHandler.newFactory());
        try {
            boolean shared = operations != null && !ops.separateListener();
            readOnlyChannel = bind(CoreConfigKeys.ADMIN_PORT, config.bind(), config.port(),
                    new AdminChannelInitializer(readOnly, shared ? operations : null, null, metrics,
                            config.maxConnections(), config.idleTimeout()));
            if (operations != null && ops.separateListener()) {
                operationsChannel = bind(CoreConfigKeys.ADMIN_OPERATIONS_PORT, ops.bind(), ops.port(),
                        new AdminChannelInitializer(null, operations,
                                operators.tlsContext() == null ? null : operators::tlsContext, metrics,
                                config.maxConnections(), config.idleTimeout()));
            }
        } catch (InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("admin: read-only endpoints on {}:{}; operations {}", config.bind(), port(), operators == null ? "off"
                : (ops.separateListener() ? ops.bind() + ":" + operationsPort() : "on the same listener")
                + (ops.tokenFile() != null ? ", bearer token" : "") + (ops.mutualTls() ? ", operator mutual TLS" : ""));
    }

    private Channel bind(ConfigKey<Integer> portKey, String host, int port, ChannelInitializer<Channel> initializer)
            throws InterruptedException {
        try {
            return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).childHandler(initializer)
                    .bind(host, port).sync().channel();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // Netty's sync() rethrows the socket's bind failure (a checked exception it does not declare)
            throw new ListenerBindException(portKey, host, port, e);
        }
    }

    /** Port of the read-only listener. */
    public int port() {
        return ((InetSocketAddress) readOnlyChannel.localAddress()).getPort();
    }

    /** Port of the separate operations listener, or -1 when there is none. */
    public int operationsPort() {
        return operationsChannel == null ? -1 : ((InetSocketAddress) operationsChannel.localAddress()).getPort();
    }

    /** The admin thread's loop, for tests that must run a task on it. */
    EventLoopGroup group() {
        return group;
    }

    /**
     * Stops the listeners, then the loop, which closes every connection it still holds (an open scrape, an operation
     * under way) before it stops; waits up to a second for it.
     */
    @Override
    public void close() {
        for (Channel c : new Channel[] {readOnlyChannel, operationsChannel}) {
            if (c != null) {
                // queued ahead of the shutdown, never awaited: the loop closes them first whatever else it runs
                c.close();
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
