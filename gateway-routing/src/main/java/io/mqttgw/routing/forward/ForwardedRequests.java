package io.mqttgw.routing.forward;

import io.mqttgw.core.admin.HolderOperations;
import io.mqttgw.core.spi.OperationForwarding.Holder;
import io.mqttgw.core.spi.OperationForwarding.Origin;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holder's side of forwarding: runs the requests other nodes send to this one, at most {@code maxInFlight} at a
 * time, each for at most its own timeout, and publishes the answer on the asking node's reply channel. A request
 * refused before it runs (busy, starting, shutting down) is written to the event log as the ones that run are (the
 * {@link Holder} writes those), so the holder's log shows every request it answered. Called on the Redis client's
 * threads; thread-safe.
 */
final class ForwardedRequests {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardedRequests.class);

    private final RedissonClient client;
    private final String nodeId;
    private final RedisOperationForwarding.Channels channels;
    private final int maxInFlight;
    private final ForwardCounters counters;
    private final AtomicInteger running = new AtomicInteger();
    private volatile Holder holder;
    private volatile boolean closed;

    ForwardedRequests(RedissonClient client, String nodeId, RedisOperationForwarding.Channels channels,
                      int maxInFlight, ForwardCounters counters) {
        this.client = client;
        this.nodeId = nodeId;
        this.channels = channels;
        this.maxInFlight = maxInFlight;
        this.counters = counters;
    }

    void serve(Holder node) {
        this.holder = node;
    }

    /** Requests running now, for the in-flight gauge. */
    int running() {
        return running.get();
    }

    /** Requests that come from now on are refused as busy: this node is shutting down. */
    void close() {
        closed = true;
    }

    void onRequest(byte[] bytes) {
        ForwardCodec.Request r = ForwardCodec.request(bytes);
        if (r == null) {
            counters.malformed.increment();
            LOG.debug("dropping a malformed request of {} bytes on {}", bytes.length, channels.request(nodeId));
            return;
        }
        Holder node = holder;
        if (node == null || closed) {
            refuse(r, "node " + nodeId + " is " + (closed ? "shutting down" : "starting"));
            return;
        }
        if (running.incrementAndGet() > maxInFlight) {
            running.decrementAndGet();
            refuse(r, "node " + nodeId + " runs " + maxInFlight
                    + " forwarded operations already (routes.redis.forward-max-in-flight)");
            return;
        }
        CompletableFuture<byte[]> outcome;
        try {
            outcome = run(node, r);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        // a copy: orTimeout on the outcome itself would fail it for the operation that completes it
        outcome.thenApply(x -> x).orTimeout(r.timeoutMillis(), TimeUnit.MILLISECONDS).whenComplete((reply, e) -> {
            running.decrementAndGet();
            counters.answered.increment();
            reply(r, e == null ? reply : ForwardCodec.refusal(r.id(), nodeId, ForwardCodec.FAILED,
                    e instanceof CompletionException && e.getCause() != null ? e.getCause().toString()
                            : e.toString()));
        });
    }

    private void refuse(ForwardCodec.Request r, String reason) {
        counters.refusedBusy.increment();
        Origin origin = new Origin(r.replyTo(), r.id());
        if (r.kind() == ForwardCodec.DOWNLINK) {
            HolderOperations.refused(origin, r.message(), "busy: " + reason);
        } else {
            HolderOperations.refused(origin, r.clientId(), r.discardSession(), "busy: " + reason);
        }
        reply(r, ForwardCodec.refusal(r.id(), nodeId, ForwardCodec.BUSY, reason));
    }

    private CompletableFuture<byte[]> run(Holder node, ForwardCodec.Request r) {
        Origin origin = new Origin(r.replyTo(), r.id());
        if (r.kind() == ForwardCodec.DOWNLINK) {
            return node.downlink(origin, r.message()).toCompletableFuture()
                    .thenApply(report -> report == null ? ForwardCodec.notHere(r.id(), nodeId)
                            : ForwardCodec.downlinkReply(r.id(), nodeId, report));
        }
        return node.kick(origin, r.clientId(), r.discardSession()).toCompletableFuture()
                .thenApply(k -> k == null ? ForwardCodec.notHere(r.id(), nodeId)
                        : ForwardCodec.kickReply(r.id(), nodeId, k.closed(), k.sessionDiscarded()));
    }

    private void reply(ForwardCodec.Request r, byte[] reply) {
        try {
            client.getTopic(channels.reply(r.replyTo()), ByteArrayCodec.INSTANCE).publishAsync(reply)
                    .whenComplete((receivers, error) -> {
                        if (error != null) {
                            LOG.debug("reply to {} not sent: {}", r.replyTo(), error.toString());
                        }
                    });
        } catch (RuntimeException e) {
            LOG.debug("reply to {} not sent: {}", r.replyTo(), e.toString());
        }
    }
}
