package io.mqttgw.core.protocol;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;

/**
 * The one place connections are closed by the gateway. The first reason given wins, so an error that follows a
 * decision (the socket failing after a refused CONNACK) does not recount it; the reason is counted once, when
 * the channel goes inactive.
 */
public final class DeviceDisconnector {
    private DeviceDisconnector() {
    }

    public static void close(Channel channel, DisconnectReason reason) {
        ConnectionContext.of(channel).closeReason(reason);
        channel.close();
    }

    /** Writes a last packet (a refusing CONNACK) and closes once it is flushed. */
    public static void closeAfter(Channel channel, Object lastPacket, DisconnectReason reason) {
        ConnectionContext.of(channel).closeReason(reason);
        channel.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }
}
