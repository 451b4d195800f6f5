package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.connection.ConnectionContext;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;

/**
 * A device's PUBACK, PUBREC and PUBCOMP for downlink messages, handed to its {@link DownlinkSession}; one for nothing
 * the session knows (late, or for a message given up) is dropped. Called by {@code EstablishedSessionHandler}.
 * Stateless, shared; event loop only.
 */
public final class DownlinkAckHandler {
    public static final DownlinkAckHandler INSTANCE = new DownlinkAckHandler();

    private DownlinkAckHandler() {
    }

    /** A PUBACK, PUBREC or PUBCOMP arrived. */
    public void acknowledged(ChannelHandlerContext ctx, MqttMessage m) {
        MqttMessageType type = m.fixedHeader().messageType();
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
