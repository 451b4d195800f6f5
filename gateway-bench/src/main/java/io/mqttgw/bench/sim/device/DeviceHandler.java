package io.mqttgw.bench.sim.device;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttPubAckMessage;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.Locale;

/**
 * The one handler instance shared by every device channel of a fleet: turns TLS completion, MQTT packets from the
 * gateway, errors and closes into calls on {@link DeviceFleet} with the channel's {@link Device}. Stateless, so
 * {@code @Sharable}; runs on the channel's event loop.
 */
@Sharable
final class DeviceHandler extends ChannelInboundHandlerAdapter {
    private final DeviceFleet fleet;

    DeviceHandler(DeviceFleet fleet) {
        this.fleet = fleet;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            Device d = ctx.channel().attr(DeviceFleet.DEVICE).get();
            if (e.isSuccess()) {
                fleet.onHandshake(d, ctx.channel());
            } else {
                fleet.onFailure(d, FailureReasons.of(e.cause()));
                ctx.close();
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            Device d = ctx.channel().attr(DeviceFleet.DEVICE).get();
            if (!(msg instanceof MqttMessage m)) {
                return;
            }
            if (m.decoderResult().isFailure()) {
                fleet.onFailure(d, "malformed_packet_from_gateway");
                ctx.close();
                return;
            }
            switch (m.fixedHeader().messageType()) {
                case CONNACK -> fleet.onConnAck(d, (MqttConnAckMessage) m);
                case PUBACK -> {
                    MqttMessageIdVariableHeader h = ((MqttPubAckMessage) m).variableHeader();
                    fleet.onPubAck(d, h.messageId(),
                            h instanceof MqttPubReplyMessageVariableHeader r ? r.reasonCode() : (byte) 0);
                }
                case DISCONNECT -> fleet.onServerDisconnect(d, ctx.channel(),
                        m.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader r
                                ? r.reasonCode() : (byte) 0);
                case SUBACK -> fleet.onSubAck();
                case PUBLISH -> fleet.onDownlink(d, m);
                case PINGRESP -> fleet.onPingResp(d);
                default -> {
                    Object header = m.variableHeader();
                    if (header instanceof MqttMessageIdVariableHeader) {
                        fleet.onFailure(d,
                                "unexpected_" + m.fixedHeader().messageType().name().toLowerCase(Locale.ROOT));
                    }
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fleet.onClosed(ctx.channel().attr(DeviceFleet.DEVICE).get(), ctx.channel());
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fleet.onFailure(ctx.channel().attr(DeviceFleet.DEVICE).get(), FailureReasons.of(cause));
        ctx.close();
    }
}
