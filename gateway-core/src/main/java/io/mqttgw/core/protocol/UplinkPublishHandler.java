package io.mqttgw.core.protocol;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.function.BiConsumer;

/**
 * Device PUBLISH to the {@code UplinkSink}, inline on the event loop. QoS 0 is handed over and forgotten (a refusal
 * is counted as a drop). QoS 1 and 2 are acknowledged (PUBACK, PUBREC) only once the sink completes, in the order
 * the PUBLISHes arrived; the completion hops back to this channel's event loop. When {@code mqtt.max-inflight-uplink}
 * messages of one connection wait for the sink, reading from that connection stops until half have completed, so a
 * slow sink holds a bounded amount of memory and pushes back on the device through TCP. A QoS 1/2 message the sink
 * refuses or fails is not acknowledged, nor is anything after it, and the connection is closed (reason sink_failed):
 * an MQTT 3.1.1 device retransmits only after a reconnect. A PUBLISH outside the device's topic ACL is counted and
 * closes the connection or is acknowledged and dropped ({@code acl.on-violation}). Also completes the QoS 2 flow
 * (PUBREL to PUBCOMP). A topic past {@code mqtt.max-topic-length} or {@code mqtt.max-topic-levels} closes the connection
 * (reason topic_limit), counted.
 * Called by {@link EstablishedSessionHandler}. Stateless (state lives in {@link ConnectionContext}), shared; event
 * loop only.
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

    public UplinkPublishHandler(UplinkSink sink, GatewayMetrics metrics, int maxInflight,
                                boolean disconnectOnAclViolation) {
        this(sink, metrics, maxInflight, disconnectOnAclViolation, TopicLimits.DEFAULT);
    }

    public UplinkPublishHandler(UplinkSink sink, GatewayMetrics metrics, int maxInflight,
                                boolean disconnectOnAclViolation, TopicLimits topicLimits) {
        this.topicLimits = topicLimits;
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

    /** The QoS 2 flow's PUBREL: answered with PUBCOMP. */
    void onPubrel(ChannelHandlerContext ctx, MqttMessage m) {
        int packetId = ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
        ConnectionContext.of(ctx.channel()).acks(maxInflight).released(packetId);
        ctx.writeAndFlush(new MqttMessage(PUBCOMP, MqttMessageIdVariableHeader.from(packetId)));
    }

    void onPublish(ChannelHandlerContext ctx, MqttPublishMessage publish) {
        int qos = publish.fixedHeader().qosLevel().value();
        int packetId = publish.variableHeader().packetId();
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        TopicLimits.Exceeded exceeded = topicLimits.check(publish.variableHeader().topicName());
        if (exceeded != null) {
            publish.release();
            metrics.topicRefused("publish", exceeded);
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.TOPIC_LIMIT);
            return;
        }
        if (!context.acl().mayPublish(context.clientId(), publish.variableHeader().topicName())) {
            publish.release();
            denied(ctx, context, qos, packetId);
            return;
        }
        UplinkMessage message;
        try {
            message = new UplinkMessage(context.clientId(), publish.variableHeader().topicName(), qos,
                    publish.fixedHeader().isRetain(), ByteBufUtil.getBytes(publish.payload()),
                    System.currentTimeMillis());
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
        Channel channel = ctx.channel();
        EventLoop loop = channel.eventLoop();
        sink.send(message).whenComplete((ignored, error) -> {
            if (loop.inEventLoop()) {
                complete(channel, acks, pending, error);
            } else {
                loop.execute(() -> complete(channel, acks, pending, error));
            }
        });
    }

    /** Outside the ACL: close, or acknowledge (in order) and drop, as {@code acl.on-violation} says. */
    private void denied(ChannelHandlerContext ctx, ConnectionContext context, int qos, int packetId) {
        metrics.aclDenied(true);
        if (disconnectOnAclViolation) {
            DeviceDisconnector.close(ctx.channel(), DisconnectReason.NOT_AUTHORIZED);
            return;
        }
        if (qos > 0) {
            UplinkAcks acks = context.acks(maxInflight);
            if (qos == 1 || acks.receiveQos2(packetId)) {
                acks.add(packetId, qos == 2).state = 1;
            } else if (!acks.waitingFor(packetId)) {
                acks.addDuplicateQos2(packetId);
            }
            pauseAtWindow(ctx.channel(), acks);
            writeReadyAcks(ctx.channel(), acks);
        }
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

    private void complete(Channel channel, UplinkAcks acks, UplinkAcks.Pending pending, Throwable error) {
        if (error == null) {
            pending.state = 1;
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
            if (channel.isWritable()) {
                // an unwritable channel stays paused; the writability handler resumes it once it drains
                channel.config().setAutoRead(true);
            }
        }
    }
}
