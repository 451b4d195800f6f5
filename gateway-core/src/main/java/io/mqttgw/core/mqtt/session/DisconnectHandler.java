package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.Mqtt5Session;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;

/**
 * A device's DISCONNECT. Normal disconnection (3.1.1, and 5.0 reason 0x00) discards the will (MQTT-3.14.4-3); 5.0
 * "disconnect with will message" (0x04) and the error reasons keep it, so it is published (after its delay). A 5.0
 * DISCONNECT may change the session expiry interval: capped at {@code session.expiry} like CONNECT's, except that a
 * session that was to end with the connection (interval 0) cannot be given one (MQTT-3.14.2-2: a protocol error,
 * answered with DISCONNECT 0x82). Called by {@code EstablishedSessionHandler}. Stateless, shared; event loop only.
 */
public final class DisconnectHandler {
    public static final DisconnectHandler INSTANCE = new DisconnectHandler();

    /** MQTT 5.0 reason code 0x04: disconnect with will message. */
    private static final int WITH_WILL = 0x04;

    private DisconnectHandler() {
    }

    /**
     * A DISCONNECT arrived.
     *
     * @param maxExpirySeconds {@code session.expiry}, the cap on a new session expiry interval
     */
    public void disconnect(ChannelHandlerContext ctx, MqttMessage m, long maxExpirySeconds) {
        ConnectionContext c = ConnectionContext.of(ctx.channel());
        int reasonCode = 0;
        if (m.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader header) {
            reasonCode = header.reasonCode() & 0xFF;
            MqttProperties.MqttProperty<?> expiry = header.properties()
                    .getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL);
            if (expiry != null && !changeExpiry(c, Integer.toUnsignedLong((Integer) expiry.value()),
                    maxExpirySeconds)) {
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
                return;
            }
        }
        if (reasonCode == 0) {
            c.discardWill();
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.CLIENT_DISCONNECT);
        } else if (reasonCode == WITH_WILL) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.CLIENT_DISCONNECT_WITH_WILL);
        } else {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.CLIENT_ERROR);
        }
    }

    /** Applies a DISCONNECT's session expiry interval; false when the session was to end with the connection. */
    private static boolean changeExpiry(ConnectionContext c, long asked, long maxExpirySeconds) {
        Mqtt5Session session = c.mqtt5();
        int current = session == null ? 0 : session.expirySeconds();
        if (current == 0 && asked != 0) {
            return false;
        }
        if (session != null) {
            session.expirySeconds((int) Math.min(asked, maxExpirySeconds));
        }
        return true;
    }
}
