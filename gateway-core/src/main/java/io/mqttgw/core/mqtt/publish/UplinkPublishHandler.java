package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.codec.PublishProperties;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodes.PubAck;
import io.netty.handler.codec.mqtt.MqttReasonCodes.PubComp;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

/**
 * Device PUBLISH to the {@code UplinkSink}, inline on the event loop: checks (topic alias, receive maximum, topic
 * limits, ACL, payload format), then the message to the sink. QoS 0 is handed over and forgotten (a refusal is
 * counted as a drop). QoS 1 and 2 are acknowledged (PUBACK, PUBREC) only once the sink completes, in the order the
 * PUBLISHes arrived ({@link UplinkDelivery}: also what a full or failing sink does to the connection). When {@code
 * mqtt.max-inflight-uplink} messages of one connection wait for the sink, reading from that connection stops until
 * half have completed, so a slow sink holds a bounded amount of memory and pushes back on the device through TCP
 * ({@link UplinkAckWriter}). A PUBLISH outside the device's topic ACL is counted and closes the connection or is
 * acknowledged and dropped ({@code acl.on-violation}). Also completes the QoS 2 flow (PUBREL to PUBCOMP). A topic past
 * {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels} closes the connection (reason topic_limit), counted.
 *
 * <p>On a connection that takes MQTT 5.0 reason codes, the acknowledgement says what became of a QoS 1/2 PUBLISH
 * instead of a close or a silent drop: 0x87 not authorized outside the ACL, 0x99 payload format invalid when the
 * payload format indicator says UTF-8 and the payload is not, 0x97 and 0x80 for the sink's refusals and failures
 * (each counted in {@code mqttgw_publish_refused_total}); the connection stays open and the device decides. The
 * PUBLISH properties go to the sink with the message ({@link PublishProperties}). A topic alias is accepted up to
 * {@code mqtt.topic-alias-maximum} (the table is the connection's, made on first use); alias 0, one above the
 * maximum, or an unknown one with an empty topic closes with DISCONNECT 0x94. More unacknowledged QoS 1/2 PUBLISHes
 * than the receive maximum announced ({@code mqtt.max-inflight-uplink}) close with DISCONNECT 0x93. Called by
 * {@code EstablishedSessionHandler}. Stateless (state lives in {@link ConnectionContext}), shared; event loop only.
 */
public final class UplinkPublishHandler {
    private static final MqttFixedHeader PUBCOMP = new MqttFixedHeader(MqttMessageType.PUBCOMP, false,
            MqttQoS.AT_MOST_ONCE, false, 2);

    private final UplinkSink sink;
    private final GatewayMetrics metrics;
    private final int maxInflight;
    private final boolean disconnectOnAclViolation;
    private final BiConsumer<Object, Throwable> countQos0Failure;
    private final TopicLimits topicLimits;
    private final int topicAliasMaximum;
    private final UplinkAckWriter acksOut;
    private final UplinkDelivery delivery;

    public UplinkPublishHandler(UplinkSink sink, GatewayMetrics metrics, int maxInflight,
                                boolean disconnectOnAclViolation) {
        this(sink, metrics, maxInflight, disconnectOnAclViolation, TopicLimits.DEFAULT, 0);
    }

    public UplinkPublishHandler(UplinkSink sink, GatewayMetrics metrics, int maxInflight,
                                boolean disconnectOnAclViolation, TopicLimits topicLimits) {
        this(sink, metrics, maxInflight, disconnectOnAclViolation, topicLimits, 0);
    }

    /**
     * @param maxInflight       {@code mqtt.max-inflight-uplink}: the uplink window, announced to MQTT 5.0 devices as
     *                          the receive maximum and enforced on them
     * @param topicAliasMaximum {@code mqtt.topic-alias-maximum}: the topic aliases announced to MQTT 5.0 devices
     */
    public UplinkPublishHandler(UplinkSink sink, GatewayMetrics metrics, int maxInflight,
                                boolean disconnectOnAclViolation, TopicLimits topicLimits, int topicAliasMaximum) {
        this.topicLimits = topicLimits;
        this.topicAliasMaximum = topicAliasMaximum;
        this.sink = sink;
        this.metrics = metrics;
        this.maxInflight = maxInflight;
        this.disconnectOnAclViolation = disconnectOnAclViolation;
        this.acksOut = new UplinkAckWriter(metrics);
        this.delivery = new UplinkDelivery(sink, metrics, acksOut);
        this.countQos0Failure = (ignored, error) -> {
            if (error != null) {
                metrics.uplinkNotDelivered(UplinkRejectedException.isRefusal(error));
            }
        };
    }

    /**
     * The QoS 2 flow's PUBREL: answered with PUBCOMP; for an id the gateway does not remember, an MQTT 5.0 PUBCOMP says
     * 0x92 packet identifier not found (a 3.1.1 one cannot say it).
     */
    public void onPubrel(ChannelHandlerContext ctx, MqttMessage m) {
        int packetId = ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        boolean known = context.acks(maxInflight).released(packetId);
        ctx.writeAndFlush(known || !context.capabilities().reasonCodes()
                ? new MqttMessage(PUBCOMP, MqttMessageIdVariableHeader.from(packetId))
                : new MqttMessage(PUBCOMP, new MqttPubReplyMessageVariableHeader(packetId,
                        PubComp.PACKET_IDENTIFIER_NOT_FOUND.byteValue(), MqttProperties.NO_PROPERTIES)));
    }

    public void onPublish(ChannelHandlerContext ctx, MqttPublishMessage publish) {
        int qos = publish.fixedHeader().qosLevel().value();
        int packetId = publish.variableHeader().packetId();
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        String topic = publish.variableHeader().topicName();
        if (context.capabilities().properties()) {
            DisconnectReason violation = null;
            MqttProperties.MqttProperty<?> alias = publish.variableHeader().properties()
                    .getProperty(MqttProperties.TOPIC_ALIAS);
            if (alias != null) {
                topic = TopicAliases.resolve(context, (Integer) alias.value(), topic, topicAliasMaximum);
                violation = topic == null ? DisconnectReason.TOPIC_ALIAS_INVALID : null;
            }
            if (violation == null && qos > 0 && context.acks(maxInflight).overReceiveMaximum(qos, packetId)) {
                // more unacknowledged than the receive maximum announced in CONNACK (the uplink window)
                violation = DisconnectReason.RECEIVE_MAXIMUM_EXCEEDED;
            }
            if (violation != null) {
                publish.release();
                DeviceDisconnector.close(ctx.channel(), violation);
                return;
            }
        }
        TopicLimits.Exceeded exceeded = topicLimits.check(topic);
        if (exceeded != null) {
            publish.release();
            metrics.topicRefused("publish", exceeded);
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.TOPIC_LIMIT);
            return;
        }
        if (!context.acl().mayPublish(context.clientId(), topic)) {
            publish.release();
            denied(ctx, context, qos, packetId);
            return;
        }
        boolean mqtt5 = context.capabilities().properties();
        MessageProperties properties = mqtt5
                ? PublishProperties.read(publish.variableHeader().properties()) : MessageProperties.NONE;
        if (properties.utf8Payload() && !ByteBufUtil.isText(publish.payload(), StandardCharsets.UTF_8)) {
            // the device said the payload is UTF-8 text and it is not: refused, never passed on as text
            publish.release();
            refuse(ctx, context, qos, packetId, PubAck.PAYLOAD_FORMAT_INVALID, "payload_format_invalid");
            return;
        }
        UplinkMessage message;
        try {
            message = new UplinkMessage(context.clientId(), topic, qos,
                    publish.fixedHeader().isRetain(), ByteBufUtil.getBytes(publish.payload()),
                    System.currentTimeMillis(), properties,
                    mqtt5 ? PublishProperties.expiryInterval(publish.variableHeader().properties())
                            : UplinkMessage.NO_EXPIRY);
        } finally {
            publish.release();
        }
        metrics.publishReceived(qos);
        if (qos == 0) {
            sink.send(message).whenComplete(countQos0Failure);
            return;
        }
        UplinkAcks acks = context.acks(maxInflight);
        UplinkAcks.Pending pending;
        if (qos == 2 && !acks.receiveQos2(packetId)) {
            // the first copy still waiting answers for both; one already answered is answered again
            if (!acks.waitingFor(packetId)) {
                acks.addDuplicateQos2(packetId);
                acksOut.pauseAtWindow(ctx.channel(), acks);
                acksOut.writeReady(ctx.channel(), acks);
            }
            return;
        }
        pending = acks.add(packetId, qos == 2);
        acksOut.pauseAtWindow(ctx.channel(), acks);
        if (acks.holding()) {
            // older messages wait for room in the sink: this one waits behind them, so the sink sees the order sent
            acks.holdLast(pending, message);
            return;
        }
        delivery.send(ctx.channel(), acks, pending, message);
    }

    /**
     * Outside the ACL: a QoS 1/2 PUBLISH on a connection that takes reason codes is answered 0x87 not authorized (in
     * order); otherwise close, or acknowledge (in order) and drop, as {@code acl.on-violation} says.
     */
    private void denied(ChannelHandlerContext ctx, ConnectionContext context, int qos, int packetId) {
        metrics.aclDenied(true);
        if (qos > 0 && context.capabilities().reasonCodes()) {
            refuse(ctx, context, qos, packetId, PubAck.NOT_AUTHORIZED, "not_authorized");
        } else if (disconnectOnAclViolation) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.NOT_AUTHORIZED);
        } else {
            refuse(ctx, context, qos, packetId, PubAck.SUCCESS, null);
        }
    }

    /**
     * Answers a PUBLISH that goes no further, in order behind those waiting for the sink: with {@code reason} (MQTT
     * 5.0; SUCCESS for an acknowledge-and-drop), counted under {@code label} when one is given. QoS 0 is only dropped.
     */
    private void refuse(ChannelHandlerContext ctx, ConnectionContext context, int qos, int packetId, PubAck reason,
                        String label) {
        if (label != null) {
            metrics.publishRefused(label);
        }
        if (qos == 0) {
            return;
        }
        UplinkAcks acks = context.acks(maxInflight);
        if (qos == 1 || acks.receiveQos2(packetId)) {
            UplinkAcks.Pending p = acks.add(packetId, qos == 2);
            p.state = 1;
            p.reason = reason.byteValue();
        } else if (!acks.waitingFor(packetId)) {
            acks.addDuplicateQos2(packetId);
        }
        acksOut.pauseAtWindow(ctx.channel(), acks);
        acksOut.writeReady(ctx.channel(), acks);
    }
}
