package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.spi.OperationForwarding;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * One operator request on clients or sessions being answered: who asked, what, and where the answer goes. Every
 * answer, given or refused, is counted and written to the event log before the response, so no path can skip the
 * audit.
 *
 * <p>Made on the admin thread; answered from whichever thread completes the lookup (the response write is handed to
 * the admin channel's loop by Netty). Immutable.
 */
final class OperatorCall {
    private final ChannelHandlerContext ctx;
    private final boolean keepAlive;
    private final String endpoint;
    private final String operator;
    private final Object remote;
    private final String what;
    private final AdminMetrics metrics;
    private final EventLog events;

    OperatorCall(ChannelHandlerContext ctx, boolean keepAlive, String endpoint, String operator, Object remote,
                 String what, AdminMetrics metrics, EventLog events) {
        this.ctx = ctx;
        this.keepAlive = keepAlive;
        this.endpoint = endpoint;
        this.operator = operator;
        this.remote = remote;
        this.what = what;
        this.metrics = metrics;
        this.events = events;
    }

    /**
     * The same call sent on to {@code holder}: its audit line names the holder and the correlation id, which the
     * holder's own line carries too.
     */
    OperatorCall forwarded(String holder, long correlationId) {
        return new OperatorCall(ctx, keepAlive, endpoint, operator, remote, what + " via node " + holder
                + " correlation=" + OperationForwarding.correlation(correlationId), metrics, events);
    }

    void done(HttpResponseStatus status, String result, String outcome, OperatorJson.Body body) {
        metrics.count(endpoint, result);
        events.operation(operator, remote, what, outcome);
        AdminResponses.respond(ctx, keepAlive, OperatorJson.response(status, body));
    }

    void refuse(HttpResponseStatus status, String result, String reason) {
        refuse(status, result, reason, null);
    }

    /** A refusal that names the node holding the device, so the operator knows where to go. */
    void refuse(HttpResponseStatus status, String result, String reason, String node) {
        metrics.count(endpoint, result);
        events.operation(operator, remote, what, "refused: " + reason);
        FullHttpResponse response = OperatorJson.error(status, reason, node);
        AdminResponses.respond(ctx, keepAlive, response);
    }

    /** A lookup that failed or took too long: the node is busy or a store is down, not the request wrong. */
    void unavailable(Throwable error) {
        Throwable cause = causeOf(error);
        refuse(HttpResponseStatus.SERVICE_UNAVAILABLE, "failed", cause instanceof TimeoutException
                ? "no answer within " + BoundedAnswers.TIMEOUT_SECONDS + " s" : "lookup failed: " + cause);
    }

    /** What went wrong in a stage: a dependent stage wraps the original in a {@link CompletionException}. */
    static Throwable causeOf(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
