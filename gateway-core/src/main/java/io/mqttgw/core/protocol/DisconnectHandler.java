package io.mqttgw.core.protocol;

import io.netty.channel.ChannelHandlerContext;

/**
 * A device's DISCONNECT: discard its will (MQTT-3.14.4-3) and close. Called by {@link EstablishedSessionHandler}.
 * Stateless, shared; event loop only.
 */
public final class DisconnectHandler {
    public static final DisconnectHandler INSTANCE = new DisconnectHandler();

    private DisconnectHandler() {
    }

    /** A DISCONNECT arrived. */
    void disconnect(ChannelHandlerContext ctx) {
        ConnectionContext.of(ctx.channel()).discardWill();
        DeviceDisconnector.close(ctx.channel(), DisconnectReason.CLIENT_DISCONNECT);
    }
}
