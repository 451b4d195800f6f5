package io.mqttgw.core.codec;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.CharacterCodingException;

/**
 * Turns a packet that {@link MqttPacketDecoder} refused or the decoder could not read into a counted close. Both report
 * failures as a value (an {@link MqttMessage} whose decoder result failed); the reason is the broken
 * {@link PacketRules} rule's, or comes from the decoder's exception type and from how far it got, never from message
 * text. A CONNECT with an unsupported protocol level or a rejected client id is answered with the CONNACK return code
 * MQTT 3.1.1 prescribes first. In the pipeline until CONNECT is accepted; then {@code EstablishedSessionHandler} calls
 * {@link #reject} itself. Stateless and shared; event loop only.
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
        Throwable cause = m.decoderResult().cause();
        boolean beforeSession = !ConnectionContext.of(ctx.channel()).sessionOpen();
        if (cause instanceof InvalidPacketException invalid) {
            // the broken rule is the specification's text: safe to tell a 5.0 device
            DeviceDisconnector.close(ctx.channel(), invalid.violation().reason(), invalid.violation().rule());
        } else if (beforeSession && cause instanceof MqttUnacceptableProtocolVersionException) {
            DeviceDisconnector.closeAfter(ctx.channel(),
                    refusal(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION),
                    DisconnectReason.UNSUPPORTED_PROTOCOL);
        } else if (beforeSession && cause instanceof MqttIdentifierRejectedException) {
            DeviceDisconnector.closeAfter(ctx.channel(),
                    refusal(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED),
                    DisconnectReason.CONNECT_REFUSED);
        } else {
            DeviceDisconnector.close(ctx.channel(), classify(m, cause));
        }
    }

    public static MqttConnAckMessage refusal(MqttConnectReturnCode code) {
        return MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false).build();
    }

    static DisconnectReason classify(MqttMessage invalid, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            return DisconnectReason.PACKET_TOO_LARGE;
        }
        if (cause instanceof MqttIdentifierRejectedException
                || cause instanceof MqttUnacceptableProtocolVersionException) {
            return DisconnectReason.SECOND_CONNECT;
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException) {
                return DisconnectReason.INVALID_UTF8;
            }
        }
        if (invalid.fixedHeader() == null) {
            // the decoder failed on the first byte: QoS 3, reserved flag bits, or an unknown packet type
            return DisconnectReason.INVALID_FIXED_HEADER;
        }
        if (invalid.fixedHeader().messageType() == MqttMessageType.PUBLISH && invalid.variableHeader() == null) {
            // the topic is the PUBLISH variable header; its UTF-8 was checked above, so this is a wildcard or U+0000
            return DisconnectReason.INVALID_TOPIC;
        }
        return DisconnectReason.MALFORMED_PACKET;
    }
}
