package io.mqttgw.routing.forward;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.OperationForwarding;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operation forwarding over Redis pub/sub ({@link ForwardCodec} has the format). Each node listens on two channels of
 * its own: its request channel, where other nodes send the downlinks and kicks of devices it holds (run by
 * {@link ForwardedRequests}), and its reply channel, where the holders answer; a correlation id pairs a reply with its
 * request. Publishing needs no more than writing a route does: whoever may write to this Redis may send a node
 * operations, as whoever may write the route table may send it takeovers.
 *
 * <p>Bounded on both sides by {@code routes.redis.forward-max-in-flight}: requests this node waits for (more are
 * refused as busy at once) and requests it runs for others (more are answered busy). A request waits at most its
 * timeout, on the asking node and on the holder alike, so a holder that never answers costs the asker a slot for
 * that long only.
 *
 * <p>A holder that is gone is answered {@link Unreachable} at once, not after the bound, in two ways, because each
 * covers a time the other cannot. Before sending, on every topology, the asker asks the fleet's verdict
 * ({@link Liveness}): a node is dead once another node watched its heartbeat stand still for {@code node-ttl}, so
 * this answers from about {@code node-ttl} after the crash until the holder's routes are removed (a large node's
 * cleanup takes a while). In the first {@code node-ttl} only one standalone server can tell: its PUBLISH counts
 * every subscriber, so 0 proves the holder's connection is gone; in Cluster and Sentinel the count misses subscribers
 * of other Redis nodes (see {@code receiversCounted}), and there the asker waits for the answer or the bound.
 *
 * <p>Only asynchronous Redis calls; messages arrive on the Redis client's threads, and nothing here blocks.
 * Thread-safe.
 */
public final class RedisOperationForwarding implements OperationForwarding {
    private static final Logger LOG = LoggerFactory.getLogger(RedisOperationForwarding.class);

    private final RedissonClient client;
    private final String nodeId;
    private final Channels channels;
    private final int maxInFlight;
    private final BooleanSupplier connected;
    private final Liveness liveness;
    private final boolean receiversCounted;
    private final RTopic requests;
    private final RTopic replies;
    private final ForwardCounters counters;
    private final ForwardedRequests held;
    private final ConcurrentHashMap<Long, CompletableFuture<ForwardCodec.Reply>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final AtomicBoolean subscribing = new AtomicBoolean();
    private volatile boolean subscribed;
    private volatile boolean closed;

    /** The channel names: {@code request(node)} and {@code reply(node)}. */
    public interface Channels {
        String request(String nodeId);

        String reply(String nodeId);
    }

    /** What the fleet found of a node's heartbeat. */
    @FunctionalInterface
    public interface Liveness {
        /**
         * Completes with true when the fleet found {@code nodeId} dead and it has not come back, false otherwise;
         * fails when Redis does not answer. Asynchronous; completes on the Redis client's threads.
         */
        CompletionStage<Boolean> foundDead(String nodeId);
    }

    /**
     * @param connected        whether Redis has answered once: until then the lazily connecting client would connect
     *                         on the caller's thread, so nothing is sent
     * @param liveness         the fleet's verdict on a holder, asked before each request is sent
     * @param receiversCounted whether the count a PUBLISH answers is every subscriber of the channel, so that 0 means
     *                         the holder does not listen: true for one standalone server only
     */
    public RedisOperationForwarding(RedissonClient client, String nodeId, Channels channels, int maxInFlight,
                                    BooleanSupplier connected, Liveness liveness, boolean receiversCounted,
                                    MeterRegistry meters) {
        this.client = client;
        this.nodeId = nodeId;
        this.channels = channels;
        this.maxInFlight = maxInFlight;
        this.connected = connected;
        this.liveness = liveness;
        this.receiversCounted = receiversCounted;
        this.requests = client.getTopic(channels.request(nodeId), ByteArrayCodec.INSTANCE);
        this.replies = client.getTopic(channels.reply(nodeId), ByteArrayCodec.INSTANCE);
        this.counters = new ForwardCounters(meters);
        this.held = new ForwardedRequests(client, nodeId, channels, maxInFlight, counters);
        String inflight = "Forwarded operator operations in flight: run for other nodes (side=holder), or sent to "
                + "the holder and waited for (side=asker)";
        Gauge.builder("mqttgw.operations.forwarded.inflight", held, ForwardedRequests::running)
                .description(inflight).tag("side", "holder").register(meters);
        Gauge.builder("mqttgw.operations.forwarded.inflight", waiting, ConcurrentHashMap::size)
                .description(inflight).tag("side", "asker").register(meters);
    }

    @Override
    public void serve(Holder node) {
        held.serve(node);
    }

    /**
     * Subscribes both channels unless subscribed or subscribing. Call it once Redis answered, from a thread that may
     * wait (the route store's flusher); Redisson resubscribes by itself after a reconnect.
     */
    public void ensure() {
        if (subscribed || closed || !subscribing.compareAndSet(false, true)) {
            return;
        }
        try {
            CompletableFuture.allOf(
                    requests.addListenerAsync(byte[].class, (channel, m) -> held.onRequest(m)).toCompletableFuture(),
                    replies.addListenerAsync(byte[].class, (channel, m) -> onReply(m)).toCompletableFuture())
                    .whenComplete((ok, error) -> subscribed(error));
        } catch (RuntimeException e) {
            subscribed(e);
        }
    }

    private void subscribed(Throwable error) {
        if (error == null) {
            subscribed = true;
            LOG.debug("subscribed to operation channels {} and {}", channels.request(nodeId), channels.reply(nodeId));
        } else {
            LOG.debug("operation channel subscription failed, retried later: {}", error.toString());
        }
        subscribing.set(false);
    }

    /** Whether this node hears forwarded requests and their replies. */
    public boolean subscribed() {
        return subscribed;
    }

    @Override
    public long newCorrelationId() {
        return ids.incrementAndGet();
    }

    @Override
    public CompletionStage<Forwarded<DownlinkTarget.Report>> downlink(String node, long correlationId,
                                                                      DownlinkMessage message, Duration timeout) {
        int millis = millis(timeout);
        byte[] request = ForwardCodec.downlink(correlationId, millis, nodeId, message);
        return send(node, correlationId, request, millis).thenApply(r -> {
            if (r.status() == ForwardCodec.NOT_HERE) {
                return new Forwarded<>(r.nodeId(), null);
            }
            expect(r, ForwardCodec.DOWNLINK);
            return new Forwarded<>(r.nodeId(), new DownlinkTarget.Report(r.outcome(), r.retained()));
        });
    }

    @Override
    public CompletionStage<Forwarded<Kick>> kick(String node, long correlationId, String clientId,
                                                 boolean discardSession, Duration timeout) {
        int millis = millis(timeout);
        byte[] request = ForwardCodec.kick(correlationId, millis, nodeId, clientId, discardSession);
        return send(node, correlationId, request, millis).thenApply(r -> {
            if (r.status() == ForwardCodec.NOT_HERE) {
                return new Forwarded<>(r.nodeId(), null);
            }
            expect(r, ForwardCodec.KICK);
            return new Forwarded<>(r.nodeId(), new Kick(r.closed(), r.sessionDiscarded()));
        });
    }

    private static void expect(ForwardCodec.Reply r, byte status) {
        if (r.status() == ForwardCodec.BUSY) {
            throw new Busy(r.reason());
        }
        if (r.status() != status) {
            throw new IllegalStateException(r.status() == ForwardCodec.FAILED ? "node " + r.nodeId() + " failed: "
                    + r.reason() : "node " + r.nodeId() + " answered another kind of operation");
        }
    }

    private static int millis(Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }

    @Override
    public int maxInFlight() {
        return maxInFlight;
    }

    private CompletableFuture<ForwardCodec.Reply> send(String node, long id, byte[] request, int timeoutMillis) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("node " + nodeId + " is shutting down"));
        }
        if (!connected.getAsBoolean() || !subscribed) {
            return CompletableFuture.failedFuture(new IllegalStateException("not subscribed to "
                    + channels.reply(nodeId) + " yet (Redis not answering?)"));
        }
        if (waiting.size() >= maxInFlight) {
            return CompletableFuture.failedFuture(new Busy("node " + nodeId + " waits for " + maxInFlight
                    + " forwarded operations already (routes.redis.forward-max-in-flight)"));
        }
        CompletableFuture<ForwardCodec.Reply> answer = new CompletableFuture<>();
        if (waiting.putIfAbsent(id, answer) != null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("correlation id "
                    + OperationForwarding.correlation(id) + " is in use"));
        }
        answer.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((r, e) -> waiting.remove(id, answer));
        CompletionStage<Boolean> dead;
        try {
            dead = liveness.foundDead(node);
        } catch (RuntimeException e) {
            dead = CompletableFuture.failedFuture(e);
        }
        dead.whenComplete((isDead, error) -> {
            if (answer.isDone()) {
                return;
            }
            if (error != null) {
                answer.completeExceptionally(new IllegalStateException("cannot tell whether node " + node
                        + " is alive, Redis did not answer (" + error + "); the request was not sent"));
            } else if (isDead) {
                unreachable(answer, "node " + node + " is not reachable: the fleet found it dead (its heartbeat "
                        + "stopped; its routes are being removed); the request was not delivered");
            } else {
                publish(node, request, answer);
            }
        });
        return answer;
    }

    private void publish(String node, byte[] request, CompletableFuture<ForwardCodec.Reply> answer) {
        String channel = channels.request(node);
        try {
            client.getTopic(channel, ByteArrayCodec.INSTANCE).publishAsync(request)
                    .whenComplete((receivers, error) -> {
                        // 0 receivers proves nobody listens only where one server counts every subscriber; in
                        // Cluster or Sentinel a holder may hear it uncounted, so there only its answer or the bound
                        if (error != null) {
                            answer.completeExceptionally(error);
                        } else if (receiversCounted && receivers != null && receivers == 0) {
                            unreachable(answer, "node " + node + " is not reachable: no node listens on " + channel
                                    + " (stopped or crashed, its route not expired yet); the request was not "
                                    + "delivered");
                        }
                    });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
    }

    private void unreachable(CompletableFuture<ForwardCodec.Reply> answer, String message) {
        if (answer.completeExceptionally(new Unreachable(message))) {
            counters.unreachable.increment();
        }
    }

    private void onReply(byte[] bytes) {
        ForwardCodec.Reply r = ForwardCodec.reply(bytes);
        if (r == null) {
            counters.malformed.increment();
            LOG.debug("dropping a malformed reply of {} bytes on {}", bytes.length, channels.reply(nodeId));
            return;
        }
        CompletableFuture<ForwardCodec.Reply> answer = waiting.remove(r.id());
        if (answer == null || !answer.complete(r)) {
            counters.late.increment();
        }
    }

    /** Stops serving and waiting: requests still waiting fail at once, requests that come are refused. */
    public void close() {
        closed = true;
        held.close();
        IllegalStateException shuttingDown = new IllegalStateException("node " + nodeId + " is shutting down");
        waiting.values().forEach(f -> f.completeExceptionally(shuttingDown));
        if (subscribed) {
            try {
                requests.removeAllListeners();
                replies.removeAllListeners();
            } catch (RuntimeException e) {
                LOG.debug("operation channels unsubscribe failed: {}", e.toString());
            }
        }
    }
}
