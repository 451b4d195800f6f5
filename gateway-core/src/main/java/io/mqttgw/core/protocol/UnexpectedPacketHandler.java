package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.util.ReferenceCountUtil;

/**
 * Last of the session handlers: whatever reaches it was handled by none before. A second CONNECT, or a packet only
 * a server sends (CONNACK, SUBACK, UNSUBACK, PINGRESP), closes the connection. Acknowledgements of downlink
 * (PUBACK, PUBREC, PUBCOMP) are consumed here until downlink retries own them. Stateless, shared.
 */
@Sharable
public final class UnexpectedPacketHandler extends ChannelInboundHandlerAdapter {
    public static final UnexpectedPacketHandler INSTANCE = new UnexpectedPacketHandler();

    private UnexpectedPacketHandler() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
        if (!(msg instanceof MqttMessage m)) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.INTERNAL_ERROR);
            return;
        }
        MqttMessageType type = m.fixedHeader().messageType();
        switch (type) {
            case PUBACK, PUBREC, PUBCOMP -> {
                // an acknowledgement of nothing the downlink handler knows: late, or for a message given up
            }
            case CONNECT -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.SECOND_CONNECT);
            default -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
        }
    }
}
