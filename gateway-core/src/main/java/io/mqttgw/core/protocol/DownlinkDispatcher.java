package io.mqttgw.core.protocol;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands downlink messages to this node's devices. One message: find the channel, hop to its event loop, check the
 * device subscribed to a matching filter, and give it to the connection's {@link DownlinkSession} at the lower of
 * the message's QoS and the granted one. A broadcast: encode once, then walk the node's sessions in slices paced at
 * {@code downlink.broadcast-rate}, each receiver handled on its own loop with a shared reference to the same
 * encoding. Callable from any thread.
 */
public final class DownlinkDispatcher implements DownlinkTarget {
    private static final long SLICE_MILLIS = 10;

    private final ChannelRegistry registry;
    private final GatewayConfig.Downlink config;
    private final GatewayMetrics metrics;
    private final ScheduledExecutorService pacer;

    /** @param pacer a non-I/O thread that paces broadcasts */
    public DownlinkDispatcher(ChannelRegistry registry, GatewayConfig.Downlink config, GatewayMetrics metrics,
                              ScheduledExecutorService pacer) {
        this.registry = registry;
        this.config = config;
        this.metrics = metrics;
        this.pacer = pacer;
    }

    @Override
    public CompletionStage<Outcome> deliver(DownlinkMessage message) {
        Channel channel = registry.find(message.clientId());
        if (channel == null) {
            metrics.downlinkOutcome(Outcome.NOT_CONNECTED);
            return CompletableFuture.completedFuture(Outcome.NOT_CONNECTED);
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            ConnectionContext context = ConnectionContext.of(channel);
            int qos = grantedQos(channel, context, message);
            if (qos < 0) {
                Outcome o = qos == -1 ? Outcome.NOT_CONNECTED : Outcome.NOT_SUBSCRIBED;
                metrics.downlinkOutcome(o);
                outcome.complete(o);
                return;
            }
            context.downlink(channel, config, metrics)
                    .send(DownlinkPublish.encode(message, channel.alloc()), qos, outcome);
        });
        return outcome;
    }

    /** The QoS to send at, or -1 (no session here) or -2 (not subscribed). Event loop only. */
    private static int grantedQos(Channel channel, ConnectionContext context, DownlinkMessage message) {
        if (!channel.isActive() || !context.sessionOpen()) {
            return -1;
        }
        int granted = context.grantedQos(message.topic());
        return granted < 0 ? -2 : Math.min(granted, message.qos());
    }

    @Override
    public CompletionStage<Integer> broadcast(DownlinkMessage message) {
        List<Channel> receivers = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, registry.size()));
        registry.forEach(receivers::add);
        CompletableFuture<Integer> done = new CompletableFuture<>();
        if (receivers.isEmpty()) {
            done.complete(0);
            return done;
        }
        DownlinkPublish shared = DownlinkPublish.encode(message, ByteBufAllocator.DEFAULT);
        AtomicInteger remaining = new AtomicInteger(receivers.size());
        AtomicInteger handed = new AtomicInteger();
        int perSlice = Math.max(1, (int) ((long) config.broadcastRate() * SLICE_MILLIS / 1000));
        Runnable[] slice = new Runnable[1];
        int[] next = {0};
        slice[0] = () -> {
            int end = Math.min(receivers.size(), next[0] + perSlice);
            for (int i = next[0]; i < end; i++) {
                Channel channel = receivers.get(i);
                shared.retain();
                try {
                    channel.eventLoop().execute(() -> handTo(channel, shared, message, handed, remaining, done));
                } catch (RuntimeException rejected) {
                    // the loop is shutting down
                    shared.release();
                    countDown(remaining, handed, done);
                }
            }
            next[0] = end;
            if (end < receivers.size()) {
                pacer.schedule(slice[0], SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } else {
                shared.release();
            }
        };
        pacer.execute(slice[0]);
        return done;
    }

    private void handTo(Channel channel, DownlinkPublish shared, DownlinkMessage message, AtomicInteger handed,
                        AtomicInteger remaining, CompletableFuture<Integer> done) {
        ConnectionContext context = ConnectionContext.of(channel);
        int qos = grantedQos(channel, context, message);
        if (qos < 0) {
            shared.release();
        } else {
            handed.incrementAndGet();
            context.downlink(channel, config, metrics).send(shared, qos, null);
        }
        countDown(remaining, handed, done);
    }

    private static void countDown(AtomicInteger remaining, AtomicInteger handed, CompletableFuture<Integer> done) {
        if (remaining.decrementAndGet() == 0) {
            done.complete(handed.get());
        }
    }
}
