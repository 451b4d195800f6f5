package io.mqttgw.core.protocol;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;

/**
 * The one place connections are closed by the gateway. The first reason given wins, so an error that follows a
 * decision (the socket failing after a refused CONNACK) does not recount it; the reason is counted once, when
 * the channel goes inactive. A connection whose protocol has reason codes (MQTT 5.0, from the accepting CONNACK on)
 * is told the reason first in a server DISCONNECT ({@link DisconnectReason#reasonCode()}), when the reason has a code
 * and the device still reads (an unwritable channel is closed at once: the DISCONNECT would wait behind what it does
 * not read).
 */
public final class DeviceDisconnector {
    private DeviceDisconnector() {
    }

    public static void close(Channel channel, DisconnectReason reason) {
        close(channel, reason, null);
    }

    /**
     * @param reasonString for a 5.0 device, a reason string for the DISCONNECT: only text that reveals nothing of the
     *                     gateway (the broken rule of the MQTT specification), or null
     */
    public static void close(Channel channel, DisconnectReason reason, String reasonString) {
        ConnectionContext c = ConnectionContext.of(channel);
        boolean decides = c.closeReason() == null;
        c.closeReason(reason);
        if (decides && reason.toldToDevice() && c.capabilities().reasonCodes() && channel.isActive()
                && channel.isWritable()) {
            channel.writeAndFlush(disconnect(reason, reasonString)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        channel.close();
    }

    /** Writes a last packet (a refusing CONNACK) and closes once it is flushed. */
    public static void closeAfter(Channel channel, Object lastPacket, DisconnectReason reason) {
        ConnectionContext.of(channel).closeReason(reason);
        channel.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    private static MqttMessage disconnect(DisconnectReason reason, String reasonString) {
        MqttMessageBuilders.DisconnectBuilder b = MqttMessageBuilders.disconnect()
                .reasonCode((byte) reason.reasonCode());
        if (reasonString != null) {
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, reasonString));
            b.properties(properties);
        }
        return b.build();
    }
}
