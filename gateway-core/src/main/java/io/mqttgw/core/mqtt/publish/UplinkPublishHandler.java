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
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
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
 * Device PUBLISH to the {@code UplinkSink}, inline on the event loop. QoS 0 is handed over and forgotten (a refusal
 * is counted as a drop). QoS 1 and 2 are acknowledged (PUBACK, PUBREC) only once the sink completes, in the order
 * the PUBLISHes arrived; the completion hops back to this channel's event loop. When {@code
 * mqtt.max-inflight-uplink} messages of one connection wait for the sink, reading from that connection stops until
 * half have completed, so a slow sink holds a bounded amount of memory and pushes back on the device through TCP. A
 * QoS 1/2 message the sink refuses for capacity (its bound is full: Kafka slow or away) is no failure: the
 * connection holds it (it and what the device sent after it, in order), stops reading, and hands it to the sink
 * again when the sink says it has room ({@link UplinkSink#waitForRoom}); reading resumes as after a full window. The
 * device stays connected and its acknowledgements wait; it cannot be read meanwhile, so its keepalive is not held
 * against it (the keepalive check skips a connection whose reading the gateway paused). Held messages of a
 * connection that closes are not acknowledged (counted as not delivered). A QoS 1/2 message the sink refuses
 * otherwise or fails is not acknowledged, nor is anything after it, and the connection is closed (reason
 * sink_failed): an MQTT 3.1.1 device retransmits only after a reconnect. A PUBLISH outside the device's topic ACL is
 * counted and closes the connection or is acknowledged and dropped ({@code acl.on-violation}). Also completes the
 * QoS 2 flow (PUBREL to PUBCOMP). A topic past {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels} closes
 * the connection (reason topic_limit), counted.
 *
 * <p>On a connection that takes MQTT 5.0 reason codes, the acknowledgement says what became of a QoS 1/2 PUBLISH
 * instead of a close or a silent drop: 0x87 not authorized outside the ACL, 0x99 payload format invalid when the
 * payload format indicator says UTF-8 and the payload is not, 0x97 quota exceeded when the sink refused it (closed,
 * or for capacity when the sink cannot say when it has room; a full sink that can is waited for as above, which
 * loses nothing and needs no resend logic in the device), 0x80 when the sink failed (each counted in {@code
 * mqttgw_publish_refused_total}); the connection stays open and the device decides. The PUBLISH properties go to the
 * sink with the message ({@link PublishProperties}). A topic alias is accepted up to {@code
 * mqtt.topic-alias-maximum} (the table is the connection's, made on first use); alias 0, one above the maximum, or
 * an unknown one with an empty topic closes with DISCONNECT 0x94. More unacknowledged QoS 1/2 PUBLISHes than the
 * receive maximum announced ({@code mqtt.max-inflight-uplink}) close with DISCONNECT 0x93. Called by {@code
 * EstablishedSessionHandler}. Stateless (state lives in {@link ConnectionContext}), shared; event loop only.
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
                pauseAtWindow(ctx.channel(), acks);
                writeReadyAcks(ctx.channel(), acks);
            }
            return;
        }
        pending = acks.add(packetId, qos == 2);
        pauseAtWindow(ctx.channel(), acks);
        if (acks.holding()) {
            // older messages wait for room in the sink: this one waits behind them, so the sink sees the order sent
            acks.holdLast(pending, message);
            return;
        }
        send(ctx.channel(), acks, pending, message);
    }

    private void send(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message) {
        EventLoop loop = channel.eventLoop();
        sink.send(message).whenComplete((ignored, error) -> {
            if (loop.inEventLoop()) {
                complete(channel, acks, pending, message, error);
            } else {
                loop.execute(() -> complete(channel, acks, pending, message, error));
            }
        });
    }

    /**
     * The sink has room again: the held messages go to it in order, until one is refused for capacity again (it then
     * waits at the front of the sink's queue). Reading resumes once they are taken and the window has drained.
     */
    void sendHeld(Channel channel, UplinkAcks acks, HeldUplink wait) {
        if (!channel.isActive()) {
            wait.end();
            return;
        }
        while (!wait.registered) {
            UplinkAcks.Pending p = acks.pollHeld();
            if (p == null) {
                break;
            }
            UplinkMessage message = p.held;
            p.held = null;
            send(channel, acks, p, message);
        }
        if (!wait.registered) {
            wait.end();
            if (channel.isActive()) {
                writeReadyAcks(channel, acks);
            }
        }
    }

    /**
     * Holds a message the sink refused for capacity, in order, and pauses reading: false when the
     * sink cannot say when it has room (then the refusal is final) or the connection is gone.
     */
    private boolean hold(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message) {
        if (!channel.isActive()) {
            return false;
        }
        HeldUplink wait = acks.roomWait();
        if (wait == null) {
            wait = new HeldUplink(channel, acks, this, sink);
            acks.roomWait(wait);
        }
        if (!wait.registered) {
            // registered before it may be told: the sink may tell at once, and the task then runs after this one
            wait.registered = true;
            if (!sink.waitForRoom(wait, message)) {
                wait.registered = false;
                return false;
            }
        }
        acks.holdRefused(pending, message);
        metrics.uplinkHeld();
        if (!acks.readingPaused()) {
            acks.readingPaused(true);
            metrics.readingPaused(true);
            channel.config().setAutoRead(false);
        }
        return true;
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
        pauseAtWindow(ctx.channel(), acks);
        writeReadyAcks(ctx.channel(), acks);
    }

    /**
     * Every path that queues an acknowledgement stops reading at the window, so answers waiting behind a slow sink
     * are bounded whichever path queued them.
     */
    private void pauseAtWindow(Channel channel, UplinkAcks acks) {
        if (acks.full() && !acks.readingPaused()) {
            acks.readingPaused(true);
            metrics.readingPaused(true);
            channel.config().setAutoRead(false);
        }
    }

    private void complete(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, UplinkMessage message,
                          Throwable error) {
        if (error == null) {
            pending.state = 1;
        } else if (UplinkRejectedException.isCapacity(error) && hold(channel, acks, pending, message)) {
            return;
        } else if (ConnectionContext.of(channel).capabilities().reasonCodes()) {
            // MQTT 5.0 says it on the acknowledgement: quota exceeded when the sink had no room, else unspecified
            boolean refusal = UplinkRejectedException.isRefusal(error);
            metrics.uplinkNotDelivered(refusal);
            metrics.publishRefused(refusal ? "quota_exceeded" : "unspecified_error");
            pending.state = 1;
            pending.reason = (refusal ? PubAck.QUOTA_EXCEEDED : PubAck.UNSPECIFIED_ERROR).byteValue();
        } else {
            pending.state = 2;
            metrics.uplinkNotDelivered(UplinkRejectedException.isRefusal(error));
            // no acknowledgement past this message: the device resends it, and what followed, once reconnected
            DeviceDisconnector.close(channel, DisconnectReason.SINK_FAILED);
            return;
        }
        if (channel.isActive()) {
            writeReadyAcks(channel, acks);
        }
    }

    private void writeReadyAcks(Channel channel, UplinkAcks acks) {
        boolean wrote = false;
        for (MqttMessage ack = acks.pollAck(); ack != null; ack = acks.pollAck()) {
            channel.write(ack);
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
        if (acks.readingPaused() && acks.drained()) {
            acks.readingPaused(false);
            metrics.readingPaused(false);
            if (channel.isWritable() && !ConnectionContext.of(channel).drainAfterAcks()) {
                // an unwritable channel stays paused; the writability watch resumes it once it drains
                channel.config().setAutoRead(true);
            }
        }
        if (acks.size() == 0) {
            DeviceDisconnector.owedAcksWritten(channel);
        }
    }
}
