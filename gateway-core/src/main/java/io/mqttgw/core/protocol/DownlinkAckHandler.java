package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;

/** A device's PUBACK, PUBREC and PUBCOMP for downlink messages, handed to its {@link DownlinkSession}. Shared. */
@Sharable
public final class DownlinkAckHandler extends ChannelInboundHandlerAdapter {
    public static final DownlinkAckHandler INSTANCE = new DownlinkAckHandler();

    private DownlinkAckHandler() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MqttMessage m)) {
            ctx.fireChannelRead(msg);
            return;
        }
        MqttMessageType type = m.fixedHeader().messageType();
        if (type != MqttMessageType.PUBACK && type != MqttMessageType.PUBREC && type != MqttMessageType.PUBCOMP) {
            ctx.fireChannelRead(msg);
            return;
        }
        DownlinkSession session = ConnectionContext.of(ctx.channel()).downlinkOrNull();
        if (session == null) {
            return;
        }
        int packetId = ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
        switch (type) {
            case PUBACK -> session.pubAck(packetId);
            case PUBREC -> session.pubRec(packetId);
            default -> session.pubComp(packetId);
        }
    }
}
