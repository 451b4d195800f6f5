package io.mqttgw.core.protocol;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Hands a downlink message to its device: finds the channel in the registry, hops to the channel's event loop and
 * writes a PUBLISH at the lower of the message's QoS and the QoS the device subscribed with. A device that is not
 * connected here, or not subscribed to a filter matching the topic, gets nothing and the outcome says why.
 * Retransmission of unacknowledged QoS 1 is not done here yet. Callable from any thread.
 */
public final class DownlinkDispatcher implements DownlinkTarget {
    private final ChannelRegistry registry;
    private final GatewayMetrics metrics;

    public DownlinkDispatcher(ChannelRegistry registry, GatewayMetrics metrics) {
        this.registry = registry;
        this.metrics = metrics;
    }

    @Override
    public CompletionStage<Outcome> deliver(DownlinkMessage message) {
        Channel channel = registry.find(message.clientId());
        if (channel == null) {
            return CompletableFuture.completedFuture(Outcome.NOT_CONNECTED);
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        channel.eventLoop().execute(() -> outcome.complete(write(channel, message)));
        return outcome;
    }

    @Override
    public CompletionStage<Integer> broadcast(DownlinkMessage message) {
        java.util.concurrent.atomic.AtomicInteger handed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<CompletableFuture<Outcome>> all = new java.util.ArrayList<>();
        registry.forEach(ch -> all.add(deliver(new DownlinkMessage(ConnectionContext.of(ch).clientId(),
                message.topic(), message.qos(), message.retain(), message.payload(), message.expiresAtMillis()))
                .toCompletableFuture().thenApply(o -> {
                    if (o == Outcome.DELIVERED) {
                        handed.incrementAndGet();
                    }
                    return o;
                })));
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> handed.get());
    }

    private Outcome write(Channel channel, DownlinkMessage message) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (!channel.isActive() || !context.sessionOpen()) {
            return Outcome.NOT_CONNECTED;
        }
        int granted = context.grantedQos(message.topic());
        if (granted < 0) {
            return Outcome.NOT_SUBSCRIBED;
        }
        int qos = Math.min(granted, message.qos());
        int packetId = qos == 0 ? 0 : context.nextPacketId();
        MqttPublishMessage publish = new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.valueOf(qos), message.retain(), 0),
                new MqttPublishVariableHeader(message.topic(), packetId), Unpooled.wrappedBuffer(message.payload()));
        channel.writeAndFlush(publish, channel.voidPromise());
        metrics.publishSent(qos);
        return Outcome.DELIVERED;
    }
}
