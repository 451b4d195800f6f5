package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;

/** Answers PINGREQ with PINGRESP at once, on the I/O thread, never queued behind other work. Stateless, shared. */
@Sharable
public final class PingRequestHandler extends ChannelInboundHandlerAdapter {
    public static final PingRequestHandler INSTANCE = new PingRequestHandler();

    private PingRequestHandler() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof MqttMessage m && m.fixedHeader().messageType() == MqttMessageType.PINGREQ) {
            ctx.writeAndFlush(MqttMessage.PINGRESP);
        } else {
            ctx.fireChannelRead(msg);
        }
    }
}
