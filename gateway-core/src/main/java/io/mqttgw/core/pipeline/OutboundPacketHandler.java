package io.mqttgw.core.pipeline;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.WritabilityWatch;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.mqtt.MqttEncoder;

/**
 * Every packet the gateway writes to a device: encoded (Netty's shared {@link MqttEncoder}) and held to the output
 * bound ({@link WritabilityWatch}, which also hears the channel's writability changes and its close). One shared entry
 * instead of the encoder's plus a per-connection writability handler (each entry costs every idle connection
 * a context object). The bound is checked here, next to the encoder, so a write is judged when it is made, as MQTT
 * packets (TLS holds written bytes until a flush, so the socket end of the pipeline would see them only then).
 * Ahead of the CONNECT phase (towards the socket), so it watches that phase's writes too. Stateless (state lives in
 * {@link ConnectionContext}), shared by all channels of a listener; event loop only.
 */
@Sharable
public final class OutboundPacketHandler extends ChannelDuplexHandler {
    private final WritabilityWatch writability;

    public OutboundPacketHandler(WritabilityWatch writability) {
        this.writability = writability;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        boolean wasWritable = ctx.channel().isWritable();
        try {
            // the encoder writes what it makes through this entry's context, on towards the socket
            MqttEncoder.INSTANCE.write(ctx, msg, promise);
        } finally {
            writability.written(ctx.channel(), wasWritable);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writability.changed(ctx.channel());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        writability.closed(ctx.channel());
        ctx.fireChannelInactive();
    }
}
