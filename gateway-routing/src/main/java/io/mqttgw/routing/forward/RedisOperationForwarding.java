package io.mqttgw.routing.forward;

import io.micrometer.core.instrument.Counter;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operation forwarding over Redis pub/sub ({@link ForwardCodec} has the format). Each node listens on two channels of
 * its own: its request channel, where other nodes send the downlinks and kicks of devices it holds, and its reply
 * channel, where the holders answer; a correlation id pairs a reply with its request. Publishing needs no more than
 * writing a route does: whoever may write to this Redis may send a node operations, as whoever may write the route
 * table may send it takeovers.
 *
 * <p>Bounded on both sides by {@code routes.redis.forward-max-in-flight}: requests this node waits for (more are
 * refused as busy at once) and requests it runs for others (more are answered busy). A request waits at most its
 * timeout, on the asking node and on the holder alike, so a holder that never answers costs the asker a slot for
 * that long only. Only asynchronous Redis calls; messages arrive on the Redis client's threads, and nothing here
 * blocks. Thread-safe.
 */
public final class RedisOperationForwarding implements OperationForwarding {
    private static final Logger LOG = LoggerFactory.getLogger(RedisOperationForwarding.class);

    private final RedissonClient client;
    private final String nodeId;
    private final Channels channels;
    private final int maxInFlight;
    private final BooleanSupplier connected;
    private final boolean receiversCounted;
    private final RTopic requests;
    private final RTopic replies;
    private final ConcurrentHashMap<Long, CompletableFuture<ForwardCodec.Reply>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicLong ids = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final AtomicBoolean subscribing = new AtomicBoolean();
    private final Counter answered;
    private final Counter refusedBusy;
    private final Counter malformed;
    private final Counter late;
    private final Counter unreachable;
    private volatile boolean subscribed;
    private volatile boolean closed;
    private volatile Holder holder;

    /** The channel names: {@code request(node)} and {@code reply(node)}. */
    public interface Channels {
        String request(String nodeId);

        String reply(String nodeId);
    }

    /**
     * @param connected        whether Redis has answered once: until then the lazily connecting client would connect
     *                         on the caller's thread, so nothing is sent
     * @param receiversCounted whether the count a PUBLISH answers is every subscriber of the channel, so that 0 means
     *                         the holder does not listen: true for one standalone server only (see {@link #send})
     */
    public RedisOperationForwarding(RedissonClient client, String nodeId, Channels channels, int maxInFlight,
                                    BooleanSupplier connected, boolean receiversCounted, MeterRegistry meters) {
        this.client = client;
        this.nodeId = nodeId;
        this.channels = channels;
        this.maxInFlight = maxInFlight;
        this.connected = connected;
        this.receiversCounted = receiversCounted;
        this.requests = client.getTopic(channels.request(nodeId), ByteArrayCodec.INSTANCE);
        this.replies = client.getTopic(channels.reply(nodeId), ByteArrayCodec.INSTANCE);
        String name = "mqttgw.operations.forwarded.messages";
        String description = "Forwarded operator operations: requests this node received and answered or refused "
                + "busy, messages dropped as malformed, replies that came after the asker stopped waiting, requests "
                + "this node sent that no node received (unreachable)";
        this.answered = Counter.builder(name).description(description).tag("result", "answered").register(meters);
        this.refusedBusy = Counter.builder(name).description(description).tag("result", "busy").register(meters);
        this.malformed = Counter.builder(name).description(description).tag("result", "malformed").register(meters);
        this.late = Counter.builder(name).description(description).tag("result", "late").register(meters);
        this.unreachable = Counter.builder(name).description(description).tag("result", "unreachable")
                .register(meters);
        String inflight = "Forwarded operator operations in flight: run for other nodes (side=holder), or sent to "
                + "the holder and waited for (side=asker)";
        Gauge.builder("mqttgw.operations.forwarded.inflight", running, AtomicInteger::get)
                .description(inflight).tag("side", "holder").register(meters);
        Gauge.builder("mqttgw.operations.forwarded.inflight", waiting, ConcurrentHashMap::size)
                .description(inflight).tag("side", "asker").register(meters);
    }

    @Override
    public void serve(Holder node) {
        this.holder = node;
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
                    requests.addListenerAsync(byte[].class, (channel, m) -> onRequest(m)).toCompletableFuture(),
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
        String channel = channels.request(node);
        try {
            client.getTopic(channel, ByteArrayCodec.INSTANCE).publishAsync(request)
                    .whenComplete((receivers, error) -> {
                        // 0 receivers proves nobody listens only where one server counts every subscriber; in
                        // Cluster or Sentinel a holder may hear it uncounted, so there only its answer or the bound
                        if (error != null) {
                            answer.completeExceptionally(error);
                        } else if (receiversCounted && receivers != null && receivers == 0
                                && answer.completeExceptionally(new Unreachable("node " + node + " is not reachable: "
                                + "no node listens on " + channel + " (stopped or crashed, its route not expired "
                                + "yet); the request was not delivered"))) {
                            unreachable.increment();
                        }
                    });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    private void onReply(byte[] bytes) {
        ForwardCodec.Reply r = ForwardCodec.reply(bytes);
        if (r == null) {
            malformed.increment();
            LOG.debug("dropping a malformed reply of {} bytes on {}", bytes.length, channels.reply(nodeId));
            return;
        }
        CompletableFuture<ForwardCodec.Reply> answer = waiting.remove(r.id());
        if (answer == null || !answer.complete(r)) {
            late.increment();
        }
    }

    private void onRequest(byte[] bytes) {
        ForwardCodec.Request r = ForwardCodec.request(bytes);
        if (r == null) {
            malformed.increment();
            LOG.debug("dropping a malformed request of {} bytes on {}", bytes.length, channels.request(nodeId));
            return;
        }
        Holder node = holder;
        if (node == null || closed) {
            refusedBusy.increment();
            reply(r, ForwardCodec.refusal(r.id(), nodeId, ForwardCodec.BUSY, "node " + nodeId + " is "
                    + (closed ? "shutting down" : "starting")));
            return;
        }
        if (running.incrementAndGet() > maxInFlight) {
            running.decrementAndGet();
            refusedBusy.increment();
            reply(r, ForwardCodec.refusal(r.id(), nodeId, ForwardCodec.BUSY, "node " + nodeId + " runs "
                    + maxInFlight + " forwarded operations already (routes.redis.forward-max-in-flight)"));
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
            answered.increment();
            reply(r, e == null ? reply : ForwardCodec.refusal(r.id(), nodeId, ForwardCodec.FAILED,
                    e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause().toString() : e.toString()));
        });
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

    /** Stops serving and waiting: requests still waiting fail at once, requests that come are refused. */
    public void close() {
        closed = true;
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
