package io.mqttgw.core.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * Collects an authenticated operation's body up to {@code admin.operations.max-payload}; a larger one is answered
 * with 413 and a JSON reason (counted), and the connection closed. One instance per connection (Netty's aggregator
 * keeps the message being collected).
 */
final class OperationBodyAggregator extends HttpObjectAggregator {
    private final int maxPayload;
    private final AdminMetrics metrics;

    OperationBodyAggregator(int maxPayload, AdminMetrics metrics) {
        super(maxPayload);
        this.maxPayload = maxPayload;
        this.metrics = metrics;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        String path = oversized instanceof HttpRequest r ? new QueryStringDecoder(r.uri()).path() : "";
        metrics.count(AdminMetrics.endpoint(path), "too_large");
        AdminResponses.respond(ctx, false, AdminResponses.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "payload larger than admin.operations.max-payload (" + maxPayload + " bytes)"));
    }
}
