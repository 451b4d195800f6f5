package io.mqttgw.core.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;

/**
 * The read-only endpoints, open to whoever reaches the admin listener: {@code GET /metrics} (Prometheus text),
 * {@code GET /health/live}, {@code GET /health/ready} and its older name {@code /health}. A request for an
 * operation goes on to the operations handlers when they serve this listener; otherwise it, like any other path,
 * gets 404 with a JSON reason. Answers from the request head and drops the body. One instance per connection (it
 * remembers whether the body being read belongs to a request it passed on); runs on the admin thread.
 */
final class ReadOnlyEndpointsHandler extends ChannelInboundHandlerAdapter {
    private final PrometheusMeterRegistry registry;
    private final HealthEndpoints health;
    private final AdminMetrics metrics;
    private final String operationsRefusal;
    private boolean passing;

    /**
     * @param operationsRefusal null when operations are served on this listener, else why they are not
     */
    ReadOnlyEndpointsHandler(PrometheusMeterRegistry registry, HealthEndpoints health, AdminMetrics metrics,
                             String operationsRefusal) {
        this.registry = registry;
        this.health = health;
        this.metrics = metrics;
        this.operationsRefusal = operationsRefusal;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            String path = new QueryStringDecoder(request.uri()).path();
            if (request.decoderResult().isSuccess() && operationsRefusal == null
                    && OperationsHandler.isOperation(path)) {
                passing = true;
                ctx.fireChannelRead(msg);
                return;
            }
            passing = false;
            boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
            FullHttpResponse response = answer(request, path);
            ReferenceCountUtil.release(msg);
            AdminResponses.respond(ctx, keepAlive, response);
        } else if (msg instanceof HttpContent && !passing) {
            // the body of a request answered from its head
            ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private FullHttpResponse answer(HttpRequest request, String path) {
        String endpoint = AdminMetrics.endpoint(path);
        if (!request.decoderResult().isSuccess()) {
            metrics.count(endpoint, "invalid");
            return AdminResponses.error(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request");
        }
        if (OperationsHandler.isOperation(path)) {
            metrics.count(endpoint, "not_found");
            return AdminResponses.error(HttpResponseStatus.NOT_FOUND, operationsRefusal);
        }
        if ("other".equals(endpoint)) {
            metrics.count(endpoint, "not_found");
            return AdminResponses.error(HttpResponseStatus.NOT_FOUND,
                    "no such endpoint; try /metrics, /health/live or /health/ready");
        }
        if (!HttpMethod.GET.equals(request.method())) {
            metrics.count(endpoint, "method_not_allowed");
            return AdminResponses.error(HttpResponseStatus.METHOD_NOT_ALLOWED, "read-only endpoints take GET");
        }
        FullHttpResponse response = switch (path) {
            case "/metrics" -> AdminResponses.text(HttpResponseStatus.OK, registry.scrape(),
                    "text/plain; version=0.0.4; charset=utf-8");
            case "/health/live" -> health.live();
            default -> health.ready();
        };
        metrics.count(endpoint, response.status().code() == 200 ? "ok" : "not_ready");
        return response;
    }
}
