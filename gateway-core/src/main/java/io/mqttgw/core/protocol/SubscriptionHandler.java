package io.mqttgw.core.protocol;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.DownlinkMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import java.util.List;
import java.util.Map;

/**
 * SUBSCRIBE and UNSUBSCRIBE: keeps the connection's topic filters (for downlink) in its {@link ConnectionContext}.
 * A filter that is invalid, past the topic limits ({@code mqtt.max-topic-length}, {@code mqtt.max-topic-levels};
 * counted), outside the device's topic ACL, or past {@code mqtt.max-subscriptions}, gets the failure
 * code 0x80 in SUBACK; the granted QoS is capped at {@code mqtt.max-qos}. An empty SUBSCRIBE or UNSUBSCRIBE violates
 * MQTT-3.8.3-3 and closes the connection. A persistent session's filters are saved to the session store. After the
 * SUBACK, the retained messages matching each granted filter follow, with the retain flag set (MQTT-3.3.1-6/8), read
 * from the store with the matching done there. Called by {@link EstablishedSessionHandler}. Stateless, shared; event
 * loop only.
 */
public final class SubscriptionHandler {
    private static final int FAILURE = 0x80;
    private static final MqttFixedHeader SUBACK = new MqttFixedHeader(MqttMessageType.SUBACK, false,
            MqttQoS.AT_MOST_ONCE, false, 0);
    private static final MqttFixedHeader UNSUBACK = new MqttFixedHeader(MqttMessageType.UNSUBACK, false,
            MqttQoS.AT_MOST_ONCE, false, 2);

    private final int maxSubscriptions;
    private final int maxQos;
    private final GatewayMetrics metrics;
    private final SessionServices services;
    private final TopicLimits topicLimits;

    public SubscriptionHandler(SessionServices services) {
        this.services = services;
        this.maxSubscriptions = services.config().mqtt().maxSubscriptions();
        this.maxQos = services.config().mqtt().maxQos();
        this.metrics = services.metrics();
        this.topicLimits = services.config().mqtt().topicLimits();
    }

    void onSubscribe(ChannelHandlerContext ctx, MqttSubscribeMessage subscribe) {
        List<MqttTopicSubscription> requested = subscribe.payload().topicSubscriptions();
        if (requested.isEmpty()) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        Map<String, Integer> subscriptions = context.subscriptions();
        int[] granted = new int[requested.size()];
        for (int i = 0; i < granted.length; i++) {
            MqttTopicSubscription s = requested.get(i);
            String filter = s.topicFilter();
            boolean known = subscriptions.containsKey(filter);
            TopicLimits.Exceeded exceeded = topicLimits.check(filter);
            if (exceeded != null) {
                metrics.topicRefused("subscribe", exceeded);
                granted[i] = FAILURE;
            } else if (!TopicFilters.isValidFilter(filter) || (!known && subscriptions.size() >= maxSubscriptions)) {
                granted[i] = FAILURE;
            } else if (!context.acl().maySubscribe(context.clientId(), filter)) {
                metrics.aclDenied(false);
                granted[i] = FAILURE;
            } else {
                granted[i] = Math.min(s.qualityOfService().value(), maxQos);
                subscriptions.put(filter, granted[i]);
            }
        }
        ctx.writeAndFlush(new MqttSubAckMessage(SUBACK,
                MqttMessageIdVariableHeader.from(subscribe.variableHeader().messageId()),
                new MqttSubAckPayload(granted)));
        saveIfPersistent(context);
        for (int i = 0; i < granted.length; i++) {
            if (granted[i] != FAILURE) {
                sendRetained(ctx.channel(), requested.get(i).topicFilter());
            }
        }
    }

    private void saveIfPersistent(ConnectionContext context) {
        if (context.persistent()) {
            Map<String, Integer> subscriptions = new java.util.LinkedHashMap<>(context.subscriptions());
            SessionStoreCalls.call(metrics, "subscriptions",
                    () -> services.sessions().saveSubscriptions(context.sessionKey(), subscriptions));
        }
    }

    /** The retained messages matching {@code filter}, read from the store and sent on the channel's loop. */
    private void sendRetained(Channel channel, String filter) {
        SessionStoreCalls.call(metrics, "retained", () -> services.sessions().retained(filter))
                .whenComplete((messages, error) -> {
                    if (error == null && !messages.isEmpty()) {
                        channel.eventLoop().execute(() -> sendRetained(channel, messages));
                    }
                });
    }

    private void sendRetained(Channel channel, List<DownlinkMessage> messages) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (!channel.isActive()) {
            return;
        }
        long now = System.currentTimeMillis();
        for (DownlinkMessage m : messages) {
            // the QoS of the best matching subscription now, which may differ from the filter that asked
            int granted = context.grantedQos(m.topic());
            if (granted < 0 || m.expired(now)) {
                continue;
            }
            DownlinkMessage retained = m.retain() ? m : new DownlinkMessage(m.clientId(), m.topic(), m.qos(), true,
                    m.payload(), m.expiresAtMillis());
            context.downlink(channel, services.config().downlink(), metrics, services.sessions())
                    .send(DownlinkPublish.encode(retained, channel.alloc()), Math.min(granted, m.qos()), null, false);
        }
    }

    void onUnsubscribe(ChannelHandlerContext ctx, MqttUnsubscribeMessage unsubscribe) {
        List<String> filters = unsubscribe.payload().topics();
        if (filters.isEmpty()) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        for (String filter : filters) {
            TopicLimits.Exceeded exceeded = topicLimits.check(filter);
            if (exceeded != null) {
                // never subscribed (SUBSCRIBE refused it): counted, nothing to remove; UNSUBACK has no failure code
                metrics.topicRefused("unsubscribe", exceeded);
            } else {
                context.subscriptions().remove(filter);
            }
        }
        ctx.writeAndFlush(new MqttUnsubAckMessage(UNSUBACK,
                MqttMessageIdVariableHeader.from(unsubscribe.variableHeader().messageId())));
        saveIfPersistent(context);
    }
}
