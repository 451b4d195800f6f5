package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.topic.TopicLimits;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
 *
 * <p>A message for a device that is not connected here goes, in a fleet, to the node the route table names as its
 * holder ({@link FleetHandOff}; the stage then completes with that node's outcome), since the device may be online
 * there; failing that, a QoS 1/2 message goes to its persistent session in the {@link SessionStore}, if it has one
 * (outcome QUEUED), to be sent when it reconnects. A message with the retain flag
 * is stored as the topic's retained message (for later subscribers) and delivered live with the flag cleared, as
 * MQTT-3.3.1-9 asks (an MQTT 5.0 subscription with retain as published gets the flag as published).
 */
public final class DownlinkDispatcher implements DownlinkTarget {
    private static final long SLICE_MILLIS = 10;

    private final ChannelRegistry registry;
    private final GatewayConfig.Downlink config;
    private final GatewayMetrics metrics;
    private final ScheduledExecutorService pacer;
    private final SessionStore store;
    private final TopicLimits topicLimits;
    /** Null on a node alone, or where the route store cannot carry a message to another node. */
    private final FleetHandOff fleet;
    private final DownlinkTarget here = new Here();

    /** @param pacer a non-I/O thread that paces broadcasts */
    public DownlinkDispatcher(ChannelRegistry registry, GatewayConfig.Downlink config, GatewayMetrics metrics,
                              ScheduledExecutorService pacer, SessionStore store) {
        this(registry, config, metrics, pacer, store, TopicLimits.DEFAULT);
    }

    /** @param topicLimits the bounds every downlink topic is checked against, whatever its source */
    public DownlinkDispatcher(ChannelRegistry registry, GatewayConfig.Downlink config, GatewayMetrics metrics,
                              ScheduledExecutorService pacer, SessionStore store, TopicLimits topicLimits) {
        this(registry, config, metrics, pacer, store, topicLimits, null);
    }

    /** @param fleet hands a message for a device not connected here to the node holding it; null for none */
    public DownlinkDispatcher(ChannelRegistry registry, GatewayConfig.Downlink config, GatewayMetrics metrics,
                              ScheduledExecutorService pacer, SessionStore store, TopicLimits topicLimits,
                              FleetHandOff fleet) {
        this.fleet = fleet;
        this.topicLimits = topicLimits;
        this.registry = registry;
        this.config = config;
        this.metrics = metrics;
        this.pacer = pacer;
        this.store = store;
    }

    /**
     * This dispatcher without the hand-off to another node: a message for a device not connected here is kept or
     * refused here. For the messages other nodes forward to this one: handing them on could send one message around
     * the fleet while routes change, so the node that was asked is the last hop.
     */
    public DownlinkTarget here() {
        return here;
    }

    @Override
    public CompletionStage<Outcome> deliver(DownlinkMessage message) {
        return deliver(message, null, fleet);
    }

    @Override
    public CompletionStage<Report> deliverReporting(DownlinkMessage message) {
        return deliverReporting(message, fleet);
    }

    private CompletionStage<Report> deliverReporting(DownlinkMessage message, FleetHandOff handOff) {
        if (!message.retain()) {
            return deliver(message, null, handOff).thenApply(o -> new Report(o, null));
        }
        CompletableFuture<Retained> retained = new CompletableFuture<>();
        return deliver(message, retained, handOff).thenCombine(retained, Report::new);
    }

    @Override
    public CompletionStage<BroadcastReport> broadcastReporting(DownlinkMessage message) {
        if (!message.retain()) {
            return broadcast(message, null).thenApply(n -> new BroadcastReport(n, null));
        }
        CompletableFuture<Retained> retained = new CompletableFuture<>();
        return broadcast(message, retained).thenCombine(retained, BroadcastReport::new);
    }

    /**
     * @param retained completed with what became of the retained copy (null when none was kept); may be null
     * @param handOff  where a message for a device not connected here goes first; null to keep or refuse it here
     */
    private CompletableFuture<Outcome> deliver(DownlinkMessage message, CompletableFuture<Retained> retained,
                                               FleetHandOff handOff) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        if (!withinLimits(message)) {
            complete(outcome, Outcome.INVALID_TOPIC);
            if (retained != null) {
                retained.complete(null);
            }
            return outcome;
        }
        DownlinkMessage live = retainAndStrip(message, retained);
        Channel channel = registry.find(live.clientId());
        if (channel == null) {
            notHere(live, outcome, handOff);
            return outcome;
        }
        channel.eventLoop().execute(() -> {
            ConnectionContext context = ConnectionContext.of(channel);
            if (!channel.isActive() || !context.sessionOpen()) {
                notHere(live, outcome, handOff);
            } else if (!context.whenRestored(() -> handOver(channel, context, live, message.retain(), outcome,
                    handOff), config.maxQueued())) {
                complete(outcome, Outcome.QUEUE_FULL);
            }
        });
        return outcome;
    }

    /** On the channel's loop, once its session is restored. */
    private void handOver(Channel channel, ConnectionContext context, DownlinkMessage message, boolean publishedRetain,
                          CompletableFuture<Outcome> outcome, FleetHandOff handOff) {
        if (!channel.isActive()) {
            notHere(message, outcome, handOff);
            return;
        }
        int granted = SubscriptionMatcher.grantedQos(context.subscriptions(), message.topic());
        if (granted < 0) {
            complete(outcome, Outcome.NOT_SUBSCRIBED);
            return;
        }
        DownlinkSession.of(channel, config, metrics, store).send(
                DownlinkPublish.encode(message, channel.alloc(), publishedRetain), Math.min(granted, message.qos()),
                outcome, true);
    }

    /**
     * The device is not connected here: the node holding it, if another node does, gets the message and answers for
     * it; else it is kept or refused here. Only an asynchronous call, so any thread (an event loop too).
     */
    private void notHere(DownlinkMessage message, CompletableFuture<Outcome> outcome, FleetHandOff handOff) {
        if (handOff == null || message.expired(System.currentTimeMillis())) {
            queueOffline(message, outcome);
            return;
        }
        handOff.handOff(message).whenComplete((theirs, error) -> {
            if (theirs != null) {
                // counted by the node that ran it: the fleet's totals count each message once
                outcome.complete(theirs);
            } else {
                queueOffline(message, outcome);
            }
        });
    }

    /** Nobody else holds the device: a QoS 1/2 message goes to its persistent session, if it has one. */
    private void queueOffline(DownlinkMessage message, CompletableFuture<Outcome> outcome) {
        if (message.qos() == 0 || message.expired(System.currentTimeMillis())) {
            complete(outcome, message.qos() == 0 ? Outcome.NOT_CONNECTED : Outcome.EXPIRED);
            return;
        }
        SessionStoreCalls.call(metrics, "append", () -> store.append(message)).whenComplete((result, error) -> {
            if (error != null) {
                complete(outcome, Outcome.NOT_CONNECTED);
            } else if (result.status() == SessionStore.Append.Status.NO_SESSION
                    && !message.clientId().startsWith(IdentityProof.NO_CERTIFICATE_SESSION_PREFIX)) {
                // no certificate-proven session by that id: the one of a device without a certificate, if any
                queueOffline(DownlinkSession.forSessionKey(message,
                        IdentityProof.NO_CERTIFICATE.sessionKey(message.clientId())), outcome);
            } else {
                complete(outcome, switch (result.status()) {
                    case STORED -> Outcome.QUEUED;
                    case FULL -> Outcome.QUEUE_FULL;
                    case NO_SESSION -> Outcome.NOT_CONNECTED;
                });
            }
        });
    }

    /** The topic limits, checked here for every source (Kafka, admin, tests): counted when broken. */
    private boolean withinLimits(DownlinkMessage message) {
        TopicLimits.Exceeded exceeded = message.topic() == null ? TopicLimits.Exceeded.LENGTH
                : topicLimits.check(message.topic());
        if (exceeded != null) {
            metrics.topicRefused("downlink", exceeded);
            return false;
        }
        return true;
    }

    private void complete(CompletableFuture<Outcome> outcome, Outcome o) {
        metrics.downlinkOutcome(o);
        outcome.complete(o);
    }

    /**
     * A message with the retain flag becomes its topic's retained message (an empty payload deletes it); the live
     * copy goes out with the flag cleared.
     */
    private DownlinkMessage retainAndStrip(DownlinkMessage message, CompletableFuture<Retained> retained) {
        if (!message.retain()) {
            return message;
        }
        boolean delete = message.payload().length == 0;
        SessionStoreCalls.call(metrics, "retain", () -> store.retain(message)).whenComplete((ignored, error) -> {
            Retained result = error != null ? Retained.REFUSED : delete ? Retained.DELETED : Retained.STORED;
            metrics.retained(result.name().toLowerCase(Locale.ROOT));
            if (retained != null) {
                retained.complete(result);
            }
        });
        return message.withRetain(false);
    }

    @Override
    public CompletionStage<Integer> broadcast(DownlinkMessage retainedOrNot) {
        return broadcast(retainedOrNot, null);
    }

    private CompletableFuture<Integer> broadcast(DownlinkMessage retainedOrNot, CompletableFuture<Retained> retained) {
        if (!withinLimits(retainedOrNot)) {
            metrics.downlinkOutcome(Outcome.INVALID_TOPIC);
            if (retained != null) {
                retained.complete(null);
            }
            return CompletableFuture.completedFuture(0);
        }
        DownlinkMessage message = retainAndStrip(retainedOrNot, retained);
        List<Channel> receivers = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, registry.size()));
        registry.forEach(receivers::add);
        CompletableFuture<Integer> done = new CompletableFuture<>();
        if (receivers.isEmpty()) {
            done.complete(0);
            return done;
        }
        DownlinkPublish shared = DownlinkPublish.encode(message, ByteBufAllocator.DEFAULT, retainedOrNot.retain());
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

    /** A broadcast is best effort to the devices connected now: not stored in persistent sessions. */
    private void handTo(Channel channel, DownlinkPublish shared, DownlinkMessage message, AtomicInteger handed,
                        AtomicInteger remaining, CompletableFuture<Integer> done) {
        ConnectionContext context = ConnectionContext.of(channel);
        Runnable handOver = () -> {
            int granted = channel.isActive() && context.sessionOpen()
                    ? SubscriptionMatcher.grantedQos(context.subscriptions(), message.topic()) : -1;
            if (granted < 0) {
                shared.release();
            } else {
                handed.incrementAndGet();
                DownlinkSession.of(channel, config, metrics, store).send(shared, Math.min(granted, message.qos()),
                        null, false);
            }
            countDown(remaining, handed, done);
        };
        if (!context.sessionOpen() || !context.whenRestored(handOver, config.maxQueued())) {
            shared.release();
            countDown(remaining, handed, done);
        }
    }

    /** The dispatcher with no hand-off to another node ({@link #here()}). */
    private final class Here implements DownlinkTarget {
        @Override
        public CompletionStage<Outcome> deliver(DownlinkMessage message) {
            return DownlinkDispatcher.this.deliver(message, null, null);
        }

        @Override
        public CompletionStage<Report> deliverReporting(DownlinkMessage message) {
            return DownlinkDispatcher.this.deliverReporting(message, null);
        }

        @Override
        public CompletionStage<BroadcastReport> broadcastReporting(DownlinkMessage message) {
            return DownlinkDispatcher.this.broadcastReporting(message);
        }

        @Override
        public CompletionStage<Integer> broadcast(DownlinkMessage message) {
            return DownlinkDispatcher.this.broadcast(message);
        }
    }

    private static void countDown(AtomicInteger remaining, AtomicInteger handed, CompletableFuture<Integer> done) {
        if (remaining.decrementAndGet() == 0) {
            done.complete(handed.get());
        }
    }
}
