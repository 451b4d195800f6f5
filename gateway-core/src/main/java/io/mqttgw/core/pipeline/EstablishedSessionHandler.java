package io.mqttgw.core.pipeline;

import io.mqttgw.core.codec.InvalidPacketHandler;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.KeepAliveWheel;
import io.mqttgw.core.mqtt.downlink.DownlinkAckHandler;
import io.mqttgw.core.mqtt.publish.UplinkPublishHandler;
import io.mqttgw.core.mqtt.session.DisconnectHandler;
import io.mqttgw.core.mqtt.session.PingRequestHandler;
import io.mqttgw.core.mqtt.session.UnexpectedPacketHandler;
import io.mqttgw.core.mqtt.subscribe.SubscriptionHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Every packet of an established session (after the accepting CONNACK) and every exception that reaches the end of
 * its pipeline: one pipeline entry per connection instead of one per packet kind, since each entry costs every idle
 * connection a context object. It dispatches by packet type to the small classes that hold each kind's
 * logic: {@link UplinkPublishHandler} (PUBLISH, PUBREL), {@link SubscriptionHandler} (SUBSCRIBE, UNSUBSCRIBE),
 * {@link PingRequestHandler}, {@link DisconnectHandler}, {@link DownlinkAckHandler} (PUBACK, PUBREC, PUBCOMP),
 * {@link UnexpectedPacketHandler} (the rest); a packet the decoder could not read goes to
 * {@link InvalidPacketHandler}, an exception to {@link ChannelErrorHandler} (both leave the pipeline when this one
 * arrives). Each packet restarts the session's keepalive period, which {@link KeepAliveWheel} checks; a closed
 * channel leaves the wheel here. Stateless (state lives in {@link ConnectionContext}), shared by all channels of a
 * listener; event loop only.
 */
@Sharable
public final class EstablishedSessionHandler extends ChannelInboundHandlerAdapter {
    private final UplinkPublishHandler publish;
    private final SubscriptionHandler subscribe;
    /** {@code session.expiry} in seconds: caps an MQTT 5.0 DISCONNECT's new session expiry interval. */
    private final long maxExpirySeconds;

    public EstablishedSessionHandler(UplinkPublishHandler publish, SubscriptionHandler subscribe) {
        this(publish, subscribe, java.time.Duration.ofDays(3650).toSeconds());
    }

    public EstablishedSessionHandler(UplinkPublishHandler publish, SubscriptionHandler subscribe,
                                     long maxExpirySeconds) {
        this.publish = java.util.Objects.requireNonNull(publish, "publish");
        this.subscribe = java.util.Objects.requireNonNull(subscribe, "subscribe");
        this.maxExpirySeconds = maxExpirySeconds;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MqttMessage m)) {
            // only the MQTT decoder feeds this handler; anything else is a pipeline bug
            ReferenceCountUtil.release(msg);
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.INTERNAL_ERROR);
            return;
        }
        // any whole packet keeps the session alive (KeepAliveWheel)
        ConnectionContext.of(ctx.channel()).packetRead(ctx.executor().ticker().nanoTime());
        if (!m.decoderResult().isSuccess()) {
            InvalidPacketHandler.INSTANCE.reject(ctx, m);
            return;
        }
        switch (m.fixedHeader().messageType()) {
            case PUBLISH -> publish.onPublish(ctx, (MqttPublishMessage) m);
            case PUBREL -> publish.onPubrel(ctx, m);
            case SUBSCRIBE -> subscribe.onSubscribe(ctx, (MqttSubscribeMessage) m);
            case UNSUBSCRIBE -> subscribe.onUnsubscribe(ctx, (MqttUnsubscribeMessage) m);
            case PINGREQ -> PingRequestHandler.INSTANCE.answer(ctx);
            case DISCONNECT -> DisconnectHandler.INSTANCE.disconnect(ctx, m, maxExpirySeconds);
            case PUBACK, PUBREC, PUBCOMP -> DownlinkAckHandler.INSTANCE.acknowledged(ctx, m);
            default -> UnexpectedPacketHandler.INSTANCE.unexpected(ctx, m);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        KeepAliveWheel.unwatch(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ChannelErrorHandler.INSTANCE.exceptionCaught(ctx, cause);
    }
}
