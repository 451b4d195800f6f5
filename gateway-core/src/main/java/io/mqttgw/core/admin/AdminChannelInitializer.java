package io.mqttgw.core.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.events.EventLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The pipeline of one admin listener: connection limit -> idle timer -> [TLS -> TLS refusal] -> HTTP codec -> idle
 * close -> [read-only endpoints] -> [operator authentication ->
 * body aggregation -> client operations -> config reload -> downlink operations]. The read-only listener has the
 * read-only part, and the operations part too when
 * operations share it; a separate operations listener has only the operations part (and TLS with operator mutual
 * TLS), so everything on it is authenticated.
 */
final class AdminChannelInitializer extends ChannelInitializer<Channel> {
    static final String LIMIT = "connection-limit";
    static final String IDLE = "idle";
    static final String IDLE_CLOSE = "idle-close";
    static final String TLS = "tls";
    static final String TLS_REFUSAL = "tls-refusal";
    static final String HTTP = "http";
    static final String READ_ONLY = "read-only";
    static final String AUTH = "operator-auth";
    static final String AGGREGATOR = "body";
    static final String CLIENTS = "client-operations";
    static final String RELOAD = "config-reload";
    static final String DRAIN = "drain";
    static final String ROUTES_VERIFY = "routes-verify";
    static final String OPERATIONS = "operations";

    /** The read-only endpoints of a listener, or null when it has none. */
    record ReadOnly(PrometheusMeterRegistry registry, HealthEndpoints health, String operationsRefusal) {
    }

    /** The operations of a listener, or null when it has none. */
    record Operations(OperatorCredentials credentials, ClientOperationsHandler clients, ConfigReloadHandler reload,
                      DrainHandler drain, RouteVerifyHandler routesVerify,
                      OperationsHandler handler, int maxPayload, EventLog events) {
    }

    private final ReadOnly readOnly;
    private final Operations operations;
    private final Supplier<SslContext> tls;
    private final AdminMetrics metrics;
    private final AdminConnectionLimitHandler limit;
    private final AdminTlsRefusalHandler tlsRefusal;
    private final long idleMillis;

    /**
     * @param maxConnections the listener's bound on open connections ({@code admin.max-connections})
     * @param idleTimeout    how long a connection may stay silent both ways ({@code admin.idle-timeout})
     */
    AdminChannelInitializer(ReadOnly readOnly, Operations operations, Supplier<SslContext> tls, AdminMetrics metrics,
                            int maxConnections, Duration idleTimeout) {
        this.readOnly = readOnly;
        this.operations = operations;
        this.tls = tls;
        this.metrics = metrics;
        this.limit = new AdminConnectionLimitHandler(maxConnections, metrics);
        this.tlsRefusal = new AdminTlsRefusalHandler(metrics);
        this.idleMillis = idleTimeout.toMillis();
    }

    @Override
    protected void initChannel(Channel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast(LIMIT, limit);
        p.addLast(IDLE, new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
        if (tls != null) {
            // the current context: operator TLS files changed on disk are picked up by the next connection
            p.addLast(TLS, tls.get().newHandler(ch.alloc()));
            p.addLast(TLS_REFUSAL, tlsRefusal);
        }
        p.addLast(HTTP, new HttpServerCodec());
        // after the codec: it keeps a connection whose answer is still being worked out (see the handler)
        p.addLast(IDLE_CLOSE, new AdminIdleCloseHandler(metrics));
        if (readOnly != null) {
            p.addLast(READ_ONLY, new ReadOnlyEndpointsHandler(readOnly.registry(), readOnly.health(), metrics,
                    readOnly.operationsRefusal()));
        }
        if (operations != null) {
            p.addLast(AUTH, new OperatorAuthHandler(operations.credentials(), metrics, operations.events()))
                    .addLast(AGGREGATOR, new OperationBodyAggregator(operations.maxPayload(), metrics))
                    .addLast(CLIENTS, operations.clients())
                    .addLast(RELOAD, operations.reload())
                    .addLast(DRAIN, operations.drain())
                    .addLast(ROUTES_VERIFY, operations.routesVerify())
                    .addLast(OPERATIONS, operations.handler());
        }
    }
}
