package io.mqttgw.core.codec;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.util.ReferenceCountUtil;

/**
 * Turns a packet that {@link MqttPacketDecoder} refused into a counted close. The decoder reports a refusal as a value
 * (an {@link MqttMessage} whose decoder result failed) whose cause names the {@link Violation}: its reason is the
 * count, its rule is told to a 5.0 device where it is the specification's text, and a CONNECT with an unsupported
 * protocol or a rejected client id is first answered with the CONNACK return code MQTT 3.1.1 prescribes. In the
 * pipeline until CONNECT is accepted; then {@code EstablishedSessionHandler} calls {@link #reject} itself. Stateless
 * and shared; event loop only.
 */
@Sharable
public final class InvalidPacketHandler extends ChannelInboundHandlerAdapter {
    public static final InvalidPacketHandler INSTANCE = new InvalidPacketHandler();

    private InvalidPacketHandler() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MqttMessage m) || m.decoderResult().isSuccess()) {
            ctx.fireChannelRead(msg);
            return;
        }
        reject(ctx, m);
    }

    /**
     * A packet whose decoder result failed: released, answered where MQTT says so, the connection closed with a
     * counted reason. Also called by {@code EstablishedSessionHandler}, which takes this handler's place.
     */
    public void reject(ChannelHandlerContext ctx, MqttMessage m) {
        ReferenceCountUtil.release(m);
        if (!(m.decoderResult().cause() instanceof InvalidPacketException invalid)) {
            // a failure of no decoder of the gateway's: nothing more is known of it
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.MALFORMED_PACKET);
            return;
        }
        Violation v = invalid.violation();
        if (v.connack() == null) {
            DeviceDisconnector.close(ctx.channel(), v.reason(), v.told() ? v.rule() : null);
        } else if (!ConnectionContext.of(ctx.channel()).sessionOpen()) {
            DeviceDisconnector.closeAfter(ctx.channel(), refusal(v.connack()), v.reason());
        } else {
            // a CONNECT inside a session gets no CONNACK
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.SECOND_CONNECT);
        }
    }

    public static MqttConnAckMessage refusal(MqttConnectReturnCode code) {
        return MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false).build();
    }
}
