package io.mqttgw.core.connection;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.mqttgw.core.mqtt.publish.UplinkAcks;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The one place connections are closed by the gateway. The first reason given wins, so an error that follows a
 * decision (the socket failing after a refused CONNACK) does not recount it; the reason is counted once, when
 * the channel goes inactive. A connection whose protocol has reason codes (MQTT 5.0, from the accepting CONNACK on)
 * is told the reason first in a server DISCONNECT ({@link DisconnectReason#reasonCode()}), when the reason has a code
 * and the device still reads (an unwritable channel is closed at once: the DISCONNECT would wait behind what it does
 * not read).
 *
 * <p>That DISCONNECT carries the reason's metric label ({@link DisconnectReason#label()}) as its Reason String, which
 * DISCONNECT may always carry: a client that reads only a DISCONNECT longer than two bytes for its reason code
 * (paho-mqtt 2.1 for Python) sees the reason too, and the device's log names what the operator's
 * {@code mqttgw_disconnects_total} counts. Each packet is encoded once per reason; a close writes a read-only,
 * unreleasable duplicate of it. A device whose maximum packet size is below that packet gets the reason code alone
 * (MQTT-3.14.2-3).
 */
public final class DeviceDisconnector {
    /**
     * How long a draining node keeps a device open for the PUBACKs it owes (its sink still takes their PUBLISHes):
     * long enough for a batching sink's flush, short enough that a stuck sink does not hold the drain.
     */
    public static final long OWED_ACKS_WAIT_MILLIS = 2_000;
    /** The encoded DISCONNECT per reason (by ordinal), or null for a reason never told. */
    private static final ByteBuf[] TOLD = new ByteBuf[DisconnectReason.values().length];

    static {
        for (DisconnectReason reason : DisconnectReason.values()) {
            if (reason.toldToDevice()) {
                TOLD[reason.ordinal()] = Unpooled.unreleasableBuffer(
                        Unpooled.wrappedBuffer(encode(reason.reasonCode(), reason.label())).asReadOnly());
            }
        }
    }

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
            ByteBuf told = TOLD[reason.ordinal()];
            Object packet = reasonString == null && told.readableBytes() <= c.capabilities().maximumPacketSize()
                    ? told.duplicate() : disconnect(reason, reasonString);
            channel.writeAndFlush(packet).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        channel.close();
    }

    /**
     * Closes a connection of a draining node. A 5.0 device is told 0x9C (use another server) with
     * {@code serverReference} as its Server Reference, or 0x8B (server shutting down) when there is no reference or
     * the device's maximum packet size is below that DISCONNECT; a 3.1.1 device has no way to be told and is closed,
     * counted as {@link DisconnectReason#SHUTDOWN}.
     *
     * <p>A connection that still waits for its sink to take QoS 1/2 PUBLISHes it read stops reading and is closed once
     * their acknowledgements are written ({@link #owedAcksWritten}), or after {@link #OWED_ACKS_WAIT_MILLIS}: closed
     * before, its device would send them again to the next node and the sink would get them twice.
     *
     * @param serverReference where the device should go instead, or null
     */
    public static void drain(Channel channel, String serverReference) {
        ConnectionContext c = ConnectionContext.of(channel);
        UplinkAcks acks = c.acksOrNull();
        if (acks != null && acks.size() > 0 && !c.drainAfterAcks() && c.closeReason() == null
                && channel.isActive()) {
            c.drainAfterAcks(serverReference);
            channel.config().setAutoRead(false);
            channel.eventLoop().schedule(() -> drainNow(channel, serverReference), OWED_ACKS_WAIT_MILLIS,
                    TimeUnit.MILLISECONDS);
            return;
        }
        drainNow(channel, serverReference);
    }

    /** Called once a connection owes no more acknowledgements: closes it if a drain waited for that. */
    public static void owedAcksWritten(Channel channel) {
        ConnectionContext c = ConnectionContext.of(channel);
        if (c.drainAfterAcks() && channel.isActive()) {
            drainNow(channel, c.drainReference());
        }
    }

    private static void drainNow(Channel channel, String serverReference) {
        ConnectionContext c = ConnectionContext.of(channel);
        if (serverReference == null || !c.capabilities().reasonCodes()) {
            close(channel, DisconnectReason.SHUTDOWN);
            return;
        }
        DisconnectReason reason = DisconnectReason.USE_ANOTHER_SERVER;
        String label = reason.label();
        int propertyBytes = 3 + label.length() + 3 + serverReference.length();
        int remaining = 1 + lengthBytes(propertyBytes) + propertyBytes;
        if (1 + lengthBytes(remaining) + remaining > c.capabilities().maximumPacketSize()) {
            close(channel, DisconnectReason.SHUTDOWN);
            return;
        }
        boolean decides = c.closeReason() == null;
        c.closeReason(reason);
        if (decides && channel.isActive() && channel.isWritable()) {
            MqttProperties properties = new MqttProperties();
            properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, label));
            properties.add(new MqttProperties.StringProperty(MqttProperties.SERVER_REFERENCE, serverReference));
            channel.writeAndFlush(MqttMessageBuilders.disconnect().reasonCode((byte) reason.reasonCode())
                    .properties(properties).build()).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        channel.close();
    }

    /** Bytes of MQTT's variable byte integer for {@code value} (below 2^21 here). */
    private static int lengthBytes(int value) {
        return value < 128 ? 1 : value < 16_384 ? 2 : 3;
    }

    /** Writes a last packet (a refusing CONNACK) and closes once it is flushed. */
    public static void closeAfter(Channel channel, Object lastPacket, DisconnectReason reason) {
        ConnectionContext.of(channel).closeReason(reason);
        channel.writeAndFlush(lastPacket).addListener(ChannelFutureListener.CLOSE);
    }

    /** The DISCONNECT packet told for {@code reason}: what {@link #close} writes (a test reads it). */
    public static ByteBuf told(DisconnectReason reason) {
        return TOLD[reason.ordinal()].duplicate();
    }

    /** DISCONNECT with {@code code} and a Reason String property holding {@code text} (ASCII, under 128 bytes). */
    private static byte[] encode(int code, String text) {
        byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        int properties = 1 + 2 + ascii.length;
        int remaining = 1 + 1 + properties;
        if (properties > 127 || remaining > 127) {
            throw new IllegalStateException("reason label too long for a one-byte length: " + text);
        }
        byte[] packet = new byte[2 + remaining];
        int i = 0;
        packet[i++] = (byte) 0xE0;
        packet[i++] = (byte) remaining;
        packet[i++] = (byte) code;
        packet[i++] = (byte) properties;
        packet[i++] = (byte) MqttProperties.REASON_STRING;
        packet[i++] = (byte) (ascii.length >> 8);
        packet[i++] = (byte) ascii.length;
        System.arraycopy(ascii, 0, packet, i, ascii.length);
        return packet;
    }

    /** The reason code alone, or with a reason string given by the caller (the broken rule). */
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
