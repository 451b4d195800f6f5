package io.mqttgw.core.pipeline;

import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's last handler: every exception ends here. Socket errors (a reset, a broken pipe) are a lost
 * connection and are counted, not logged, and so are TLS record errors; anything
 * else is a gateway bug, logged at most once a second with its stack. Stateless, shared.
 */
@Sharable
public final class ChannelErrorHandler extends ChannelInboundHandlerAdapter {
    public static final ChannelErrorHandler INSTANCE = new ChannelErrorHandler();
    private static final Logger LOG = LoggerFactory.getLogger(ChannelErrorHandler.class);
    private static final AtomicLong LAST_LOGGED = new AtomicLong();

    private ChannelErrorHandler() {
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException
                || cause instanceof DecoderException && cause.getCause() instanceof SSLException) {
            // a failed handshake already recorded its own reason; the first reason wins
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.CONNECTION_LOST);
            return;
        }
        long now = System.currentTimeMillis();
        long last = LAST_LOGGED.get();
        if (now - last >= 1000 && LAST_LOGGED.compareAndSet(last, now)) {
            LOG.error("unexpected error on {}; closing it", ctx.channel(), cause);
        }
        DeviceDisconnector.close(ctx.channel(), DisconnectReason.INTERNAL_ERROR);
    }
}
