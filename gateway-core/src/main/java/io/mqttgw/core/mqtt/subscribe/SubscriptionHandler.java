package io.mqttgw.core.mqtt.subscribe;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.downlink.DownlinkPublish;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.mqtt.downlink.SubscriptionMatcher;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.spi.Subscriptions;
import io.mqttgw.core.topic.TopicFilters;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodes.SubAck;
import io.netty.handler.codec.mqtt.MqttReasonCodes.UnsubAck;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttUnsubAckPayload;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import java.util.List;

/**
 * SUBSCRIBE and UNSUBSCRIBE: keeps the connection's topic filters (for downlink) in its {@link ConnectionContext}.
 * A filter that is invalid, past the topic limits ({@code mqtt.max-topic-length}, {@code mqtt.max-topic-levels};
 * counted), outside the device's topic ACL, or past {@code mqtt.max-subscriptions}, is refused in SUBACK; the granted
 * QoS is capped at {@code mqtt.max-qos}. An MQTT 3.1.1 SUBACK says 0x80 for every refusal; one for a connection that
 * takes reason codes says why (0x8F topic filter invalid, 0x87 not authorized, 0x97 quota exceeded, 0x9E for a shared
 * subscription {@code $share/...}, which a gateway does not serve; subscription identifiers are supported, so 0xA1 is
 * never said), and
 * its UNSUBACK says 0x00, 0x11 (no subscription existed), 0x87 or 0x8F per filter. MQTT 5.0 subscription options are
 * kept per filter ({@link Subscription}: retain as published, retain handling, subscription identifier; no local is
 * moot, a gateway never sends a device its own messages). An empty SUBSCRIBE or UNSUBSCRIBE violates MQTT-3.8.3-3 and
 * closes the connection. A persistent session's filters are saved to the session store. After the SUBACK, the retained
 * messages matching each granted filter follow (unless its retain handling says otherwise), with the retain flag set
 * (MQTT-3.3.1-6/8), read from the store with the matching done there. Called by {@code EstablishedSessionHandler}.
 * Stateless, shared; event loop only.
 */
public final class SubscriptionHandler {
    private static final int FAILURE = 0x80;
    private static final String SHARED_PREFIX = "$share/";
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

    public void onSubscribe(ChannelHandlerContext ctx, MqttSubscribeMessage subscribe) {
        List<MqttTopicSubscription> requested = subscribe.payload().topicSubscriptions();
        if (requested.isEmpty()) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        boolean reasons = context.capabilities().reasonCodes();
        int identifier = reasons ? subscriptionIdentifier(subscribe) : 0;
        Subscriptions subscriptions = context.subscriptions();
        int[] granted = new int[requested.size()];
        boolean[] sendRetained = new boolean[granted.length];
        for (int i = 0; i < granted.length; i++) {
            MqttTopicSubscription s = requested.get(i);
            String filter = s.topicFilter();
            boolean known = subscriptions.containsKey(filter);
            int refusal = refusal(context, filter, known, subscriptions.size());
            if (refusal != 0) {
                granted[i] = reasons ? refusal : FAILURE;
                continue;
            }
            MqttSubscriptionOption option = s.option();
            granted[i] = Math.min(option.qos().value(), maxQos);
            int retainHandling = reasons ? option.retainHandling().value() : 0;
            subscriptions = subscriptions.with(filter, reasons
                    ? Subscription.of(granted[i], option.isRetainAsPublished(), retainHandling, identifier)
                    : Subscription.ofQos(granted[i]));
            sendRetained[i] = retainHandling == 0 || (retainHandling == 1 && !known);
        }
        context.subscriptions(subscriptions);
        MqttMessageIdVariableHeader id = MqttMessageIdVariableHeader.from(subscribe.variableHeader().messageId());
        ctx.writeAndFlush(new MqttSubAckMessage(SUBACK, id, new MqttSubAckPayload(granted)));
        saveIfPersistent(context);
        for (int i = 0; i < granted.length; i++) {
            if (sendRetained[i]) {
                sendRetained(ctx.channel(), requested.get(i).topicFilter());
            }
        }
    }

    /** Why {@code filter} is refused, as an MQTT 5.0 SUBACK reason code, or 0 when it is granted. */
    private int refusal(ConnectionContext context, String filter, boolean known, int held) {
        TopicLimits.Exceeded exceeded = topicLimits.check(filter);
        if (exceeded != null) {
            metrics.topicRefused("subscribe", exceeded);
            return SubAck.TOPIC_FILTER_INVALID.byteValue() & 0xFF;
        }
        if (context.capabilities().reasonCodes() && filter.startsWith(SHARED_PREFIX)) {
            // shared subscriptions balance messages between devices; a gateway does not route device to device
            return SubAck.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED.byteValue() & 0xFF;
        }
        if (!TopicFilters.isValidFilter(filter)) {
            return SubAck.TOPIC_FILTER_INVALID.byteValue() & 0xFF;
        }
        if (!known && held >= maxSubscriptions) {
            return SubAck.QUOTA_EXCEEDED.byteValue() & 0xFF;
        }
        if (!context.acl().maySubscribe(context.clientId(), filter)) {
            metrics.aclDenied(false);
            return SubAck.NOT_AUTHORIZED.byteValue() & 0xFF;
        }
        return 0;
    }

    /** The SUBSCRIBE's subscription identifier property, or 0 without one. */
    private static int subscriptionIdentifier(MqttSubscribeMessage subscribe) {
        MqttProperties.MqttProperty<?> p = subscribe.idAndPropertiesVariableHeader().properties()
                .getProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER);
        return p == null ? 0 : (Integer) p.value();
    }

    private void saveIfPersistent(ConnectionContext context) {
        if (context.persistent()) {
            // immutable: the store keeps this very instance, no copy
            Subscriptions subscriptions = context.subscriptions();
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
            int granted = SubscriptionMatcher.grantedQos(context.subscriptions(), m.topic());
            if (granted < 0 || m.expired(now)) {
                continue;
            }
            DownlinkMessage retained = m.withRetain(true);
            DownlinkSession.of(channel, services.config().downlink(), metrics, services.sessions())
                    .send(DownlinkPublish.encode(retained, channel.alloc()), Math.min(granted, m.qos()), null, false);
        }
    }

    public void onUnsubscribe(ChannelHandlerContext ctx, MqttUnsubscribeMessage unsubscribe) {
        List<String> filters = unsubscribe.payload().topics();
        if (filters.isEmpty()) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        short[] reasons = new short[filters.size()];
        for (int i = 0; i < reasons.length; i++) {
            String filter = filters.get(i);
            TopicLimits.Exceeded exceeded = topicLimits.check(filter);
            if (exceeded != null) {
                // never subscribed (SUBSCRIBE refused it): counted, nothing to remove
                metrics.topicRefused("unsubscribe", exceeded);
                reasons[i] = (short) (UnsubAck.TOPIC_FILTER_INVALID.byteValue() & 0xFF);
            } else if (context.subscriptions().containsKey(filter)) {
                context.subscriptions(context.subscriptions().without(filter));
                reasons[i] = UnsubAck.SUCCESS.byteValue();
            } else if (!context.acl().maySubscribe(context.clientId(), filter)) {
                reasons[i] = (short) (UnsubAck.NOT_AUTHORIZED.byteValue() & 0xFF);
            } else {
                reasons[i] = UnsubAck.NO_SUBSCRIPTION_EXISTED.byteValue();
            }
        }
        MqttMessageIdVariableHeader id = MqttMessageIdVariableHeader.from(unsubscribe.variableHeader().messageId());
        // an MQTT 3.1.1 UNSUBACK has no payload; the encoder writes the reason codes only for 5.0
        ctx.writeAndFlush(context.capabilities().reasonCodes()
                ? new MqttUnsubAckMessage(UNSUBACK, id, new MqttUnsubAckPayload(reasons))
                : new MqttUnsubAckMessage(UNSUBACK, id));
        saveIfPersistent(context);
    }
}
