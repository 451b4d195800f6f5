package io.mqttgw.core.admin;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Closes an admin connection that the {@code IdleStateHandler} found idle for {@code admin.idle-timeout} (nothing
 * read or written), counted as {@code reason="idle"}, unless the node still owes it the answer to a request it has
 * read whole: an operation that waits for its outcome (a downlink or kick forwarded to the node holding the device,
 * up to its own bound) would otherwise lose its connection, and the operator the answer, when that bound is longer
 * than the idle timeout. A request still being sent does not count, so a client that stops half way is closed as
 * before; an answer written before its request was read whole (a refusal) settles that request. After the HTTP codec
 * (it counts requests and answers); one per connection, admin event loop only.
 */
final class AdminIdleCloseHandler extends ChannelDuplexHandler {
    private final AdminMetrics metrics;
    private long requestsRead;
    private long answersWritten;

    AdminIdleCloseHandler(AdminMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof LastHttpContent) {
            requestsRead++;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        // a 100 Continue is not the answer: the request's own answer follows it
        if (msg instanceof LastHttpContent && !(msg instanceof HttpResponse response
                && response.status().codeClass() == HttpStatusClass.INFORMATIONAL)) {
            answersWritten++;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (requestsRead > answersWritten) {
                // the IdleStateHandler asks again after another idle period
                return;
            }
            metrics.connectionClosed("idle");
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }
}
