package io.mqttgw.core.admin;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Behind the TLS handler of an operations listener with operator mutual TLS: a refused handshake (no client
 * certificate, one of another CA, plain HTTP) is counted as {@code mqttgw_admin_connections_closed_total{reason=
 * "tls_handshake"}} and logged at most once a minute with the peer and the reason, instead of reaching the end of the
 * pipeline as an unhandled exception with a stack trace per attempt. Removes itself once a handshake succeeded.
 * Shared by the listener's connections; the log's rate limit is its only state.
 */
@ChannelHandler.Sharable
final class AdminTlsRefusalHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(AdminTlsRefusalHandler.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final AdminMetrics metrics;
    private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);
    private final AtomicLong unlogged = new AtomicLong();

    AdminTlsRefusalHandler(AdminMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (done.isSuccess()) {
                ctx.pipeline().remove(this);
            } else {
                refused(ctx, done.cause());
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable tls = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (tls instanceof SSLException) {
            // the handshake's failure, already counted and logged from its completion event
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private void refused(ChannelHandlerContext ctx, Throwable cause) {
        metrics.connectionClosed("tls_handshake");
        long now = System.nanoTime();
        long last = lastLogged.get();
        if (now - last >= LOG_INTERVAL_NANOS && lastLogged.compareAndSet(last, now)) {
            long more = unlogged.getAndSet(0);
            LOG.warn("admin operations: refused the TLS handshake of {}: {}{}", ctx.channel().remoteAddress(),
                    cause == null ? "unknown" : cause.getMessage(),
                    more > 0 ? " (" + more + " more since the last report)" : "");
        } else {
            unlogged.incrementAndGet();
        }
        ctx.close();
    }
}
