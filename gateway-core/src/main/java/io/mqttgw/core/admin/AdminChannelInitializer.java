package io.mqttgw.core.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.events.EventLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;

/**
 * The pipeline of one admin listener: [TLS] -> HTTP codec -> [read-only endpoints] -> [operator authentication ->
 * body aggregation -> operations]. The read-only listener has the read-only part, and the operations part too when
 * operations share it; a separate operations listener has only the operations part (and TLS with operator mutual
 * TLS), so everything on it is authenticated.
 */
final class AdminChannelInitializer extends ChannelInitializer<Channel> {
    static final String TLS = "tls";
    static final String HTTP = "http";
    static final String READ_ONLY = "read-only";
    static final String AUTH = "operator-auth";
    static final String AGGREGATOR = "body";
    static final String OPERATIONS = "operations";

    /** The read-only endpoints of a listener, or null when it has none. */
    record ReadOnly(PrometheusMeterRegistry registry, HealthEndpoints health, String operationsRefusal) {
    }

    /** The operations of a listener, or null when it has none. */
    record Operations(OperatorCredentials credentials, OperationsHandler handler, int maxPayload, EventLog events) {
    }

    private final ReadOnly readOnly;
    private final Operations operations;
    private final SslContext tls;
    private final AdminMetrics metrics;

    AdminChannelInitializer(ReadOnly readOnly, Operations operations, SslContext tls, AdminMetrics metrics) {
        this.readOnly = readOnly;
        this.operations = operations;
        this.tls = tls;
        this.metrics = metrics;
    }

    @Override
    protected void initChannel(Channel ch) {
        ChannelPipeline p = ch.pipeline();
        if (tls != null) {
            p.addLast(TLS, tls.newHandler(ch.alloc()));
        }
        p.addLast(HTTP, new HttpServerCodec());
        if (readOnly != null) {
            p.addLast(READ_ONLY, new ReadOnlyEndpointsHandler(readOnly.registry(), readOnly.health(), metrics,
                    readOnly.operationsRefusal()));
        }
        if (operations != null) {
            p.addLast(AUTH, new OperatorAuthHandler(operations.credentials(), metrics, operations.events()))
                    .addLast(AGGREGATOR, new OperationBodyAggregator(operations.maxPayload(), metrics))
                    .addLast(OPERATIONS, operations.handler());
        }
    }
}
