package io.mqttgw.core.mqtt.session;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttMessage;

/**
 * Answers PINGREQ with PINGRESP at once, on the I/O thread, never queued behind other work. Called by
 * {@code EstablishedSessionHandler}. Stateless, shared; event loop only.
 */
public final class PingRequestHandler {
    public static final PingRequestHandler INSTANCE = new PingRequestHandler();

    private PingRequestHandler() {
    }

    /** A PINGREQ arrived. */
    public void answer(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(MqttMessage.PINGRESP);
    }
}
