package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.util.ReferenceCountUtil;

/**
 * The packets of an established session that no other packet class takes: a second CONNECT, or a packet only a
 * server sends (CONNACK, SUBACK, UNSUBACK, PINGRESP), closes the connection, an MQTT 5.0 AUTH too (reason bad
 * authentication method: enhanced authentication is not offered); an acknowledgement of downlink
 * (PUBACK, PUBREC, PUBCOMP) given here is consumed. Called by {@code EstablishedSessionHandler}. Stateless, shared;
 * event loop only.
 */
public final class UnexpectedPacketHandler {
    public static final UnexpectedPacketHandler INSTANCE = new UnexpectedPacketHandler();

    private UnexpectedPacketHandler() {
    }

    /** A packet no other class of the established session takes; released here. */
    public void unexpected(ChannelHandlerContext ctx, MqttMessage m) {
        ReferenceCountUtil.release(m);
        MqttMessageType type = m.fixedHeader().messageType();
        switch (type) {
            case PUBACK, PUBREC, PUBCOMP -> {
                // an acknowledgement of nothing the downlink handler knows: late, or for a message given up
            }
            case CONNECT -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.SECOND_CONNECT);
            // 5.0 AUTH: no CONNECT is accepted with an authentication method, so there is nothing to continue
            case AUTH -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.BAD_AUTHENTICATION_METHOD);
            default -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
        }
    }
}
