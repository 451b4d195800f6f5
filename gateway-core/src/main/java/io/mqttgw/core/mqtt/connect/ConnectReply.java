package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.codec.InvalidPacketHandler;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.connection.SessionPhase;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The last step of CONNECT: the answer. An accepting CONNACK (with the gateway's MQTT 5.0 properties) and the switch
 * to the established pipeline, the session handlers in place of the CONNECT handler and reading resumed; or a
 * refusal's CONNACK, with the code the connection's protocol has for it, and the close. Stateless apart from the
 * services; event loop only.
 */
final class ConnectReply {
    private final SessionServices services;
    private final SessionPhase sessionPhase;

    ConnectReply(SessionServices services, SessionPhase sessionPhase) {
        this.services = services;
        this.sessionPhase = sessionPhase;
    }

    /**
     * CONNACK accepted, the session handlers in place of the CONNECT handler ({@code ctx}'s, named {@code name}),
     * reading resumed.
     */
    void accept(ChannelHandlerContext ctx, String name, ConnectRequest request, boolean sessionPresent) {
        Channel channel = ctx.channel();
        MqttMessageBuilders.ConnAckBuilder connAck = MqttMessageBuilders.connAck()
                .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).sessionPresent(sessionPresent);
        if (request.capabilities().properties()) {
            connAck.properties(Mqtt5Connect.connAck(services.config().mqtt(), request.assignedClientId(),
                    request.serverKeepAlive(), request.grantedExpirySeconds()));
        }
        ConnectionContext context = ConnectionContext.of(channel);
        // from here on the device may be told why the gateway closes the connection (5.0 server DISCONNECT)
        context.capabilities(request.capabilities());
        ctx.writeAndFlush(connAck.build());
        services.metrics().connectAnswered(MqttConnectReturnCode.CONNECTION_ACCEPTED);
        services.events().connected(request.clientId(), context.remoteAddress(), context.listener());
        sessionPhase.install(ctx.pipeline(), name, request.keepAliveSeconds());
        ctx.pipeline().remove(ctx.handler());
        if (channel.isWritable()) {
            // an unwritable channel stays paused; the writability watch resumes it once it drains
            channel.config().setAutoRead(true);
        }
    }

    /** The refusal after a random delay up to {@code admission.reject-delay}, so the devices' retries spread out. */
    void refuseLater(Channel channel, ProtocolCapabilities capabilities, Refused refused) {
        long max = services.config().admission().rejectDelay().toMillis();
        channel.eventLoop().schedule(() -> refuse(channel, capabilities, refused),
                max <= 0 ? 0 : ThreadLocalRandom.current().nextLong(max + 1), TimeUnit.MILLISECONDS);
    }

    /** CONNACK with the refusal's code for this connection's protocol, then close; a close alone where it has none. */
    void refuse(Channel channel, ProtocolCapabilities capabilities, Refused refused) {
        MqttConnectReturnCode code = refused.refusal().code(capabilities);
        if (code == null) {
            DeviceDisconnector.close(channel, refused.reason());
            return;
        }
        services.metrics().connectAnswered(code);
        services.events().refused(refused.clientId(), ConnectionContext.of(channel).remoteAddress(), code);
        DeviceDisconnector.closeAfter(channel, InvalidPacketHandler.refusal(code), refused.reason());
    }
}
