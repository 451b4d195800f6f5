package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;

/** A device's DISCONNECT: discard its will (MQTT-3.14.4-3) and close. Stateless, shared; event loop only. */
@Sharable
public final class DisconnectHandler extends ChannelInboundHandlerAdapter {
    public static final DisconnectHandler INSTANCE = new DisconnectHandler();

    private DisconnectHandler() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof MqttMessage m && m.fixedHeader().messageType() == MqttMessageType.DISCONNECT) {
            ConnectionContext.of(ctx.channel()).discardWill();
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.CLIENT_DISCONNECT);
        } else {
            ctx.fireChannelRead(msg);
        }
    }
}
