package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.Map;

/**
 * An operation that owns one path and takes {@code POST}: requests for other paths pass on down the pipeline; for its
 * own path the request is read into a {@link Call} and released before the operation runs, so an operation that
 * answers later (off the admin thread) holds no buffer. A method other than POST is refused here, counted and logged
 * like every other refusal. Subclasses are stateless and shared; runs on the admin thread.
 */
abstract class SinglePathOperationHandler extends ChannelInboundHandlerAdapter {
    private final String path;
    private final String metric;
    private final AdminMetrics metrics;
    private final EventLog events;

    SinglePathOperationHandler(String path, String metric, AdminMetrics metrics, EventLog events) {
        this.path = path;
        this.metric = metric;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request) || !request.decoderResult().isSuccess()
                || !path.equals(new QueryStringDecoder(request.uri()).rawPath())) {
            ctx.fireChannelRead(msg);
            return;
        }
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        Call call = new Call(ctx, HttpUtil.isKeepAlive(request),
                ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null), ctx.channel().remoteAddress(),
                request.method() + " " + path + (query.rawQuery().isEmpty() ? "" : "?" + query.rawQuery()), query);
        boolean post = HttpMethod.POST.equals(request.method());
        ReferenceCountUtil.release(msg);
        if (!post) {
            call.refuse(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed", path + " takes POST");
            return;
        }
        handle(call);
    }

    /** Runs the operation for a POST to this handler's path; answers through {@code call}, now or later. */
    abstract void handle(Call call);

    /**
     * For an operation whose only parameter is the flag {@code name}: why {@code parameters} are refused, or null.
     */
    final String badFlagQuery(Map<String, List<String>> parameters, String name) {
        for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
            if (!name.equals(p.getKey())) {
                return "unknown parameter " + p.getKey() + "; " + path + " takes " + name + "=true|false";
            }
            if (p.getValue().size() != 1 || !List.of("true", "false").contains(p.getValue().get(0))) {
                return name + " takes true or false";
            }
        }
        return null;
    }

    /** The flag {@code name} of a query {@link #badFlagQuery} accepted, {@code absent} when not given. */
    static boolean flag(Map<String, List<String>> parameters, String name, boolean absent) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? absent : "true".equals(values.get(0));
    }

    /** One request to the operation, already released: who asked, from where, and how it is answered. */
    final class Call {
        private final ChannelHandlerContext ctx;
        private final boolean keepAlive;
        private final String operator;
        private final Object remote;
        private final String what;
        private final QueryStringDecoder query;

        private Call(ChannelHandlerContext ctx, boolean keepAlive, String operator, Object remote, String what,
                     QueryStringDecoder query) {
            this.ctx = ctx;
            this.keepAlive = keepAlive;
            this.operator = operator;
            this.remote = remote;
            this.what = what;
            this.query = query;
        }

        String operator() {
            return operator;
        }

        QueryStringDecoder query() {
            return query;
        }

        /** Counts the refusal under {@code outcome}, logs it with the operator and answers {@code {"error": ...}}. */
        void refuse(HttpResponseStatus status, String outcome, String reason) {
            answer(outcome, "refused: " + reason, OperatorJson.error(status, reason, null));
        }

        /** Counts {@code outcome}, writes {@code logged} to the event log with the operator, and answers. */
        void answer(String outcome, String logged, FullHttpResponse response) {
            metrics.count(metric, outcome);
            events.operation(operator, remote, what, logged);
            AdminResponses.respond(ctx, keepAlive, response);
        }
    }
}
