package io.mqttgw.routing.redis;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.routing.forward.RedisOperationForwarding;
import io.mqttgw.routing.route.RouteOp;
import io.mqttgw.routing.route.RouteQueue;
import io.mqttgw.routing.takeover.TakeoverSubscription;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route table in Redis. {@link #put} and {@link #remove} run on event loops and only enqueue: O(1), lock-free,
 * never waiting. When {@code routes.redis.queue-capacity} operations wait, a new one is dropped: its stage fails
 * with {@link RouteQueueFullException}, it is counted ({@code result="dropped"}), {@code /health} says DEGRADED and,
 * once Redis keeps up again, this node's routes are resynchronised from its live sessions, so the table converges.
 * Everything that talks to Redis runs on one flusher thread ({@link RouteFlusher}) and the Redis client's own event
 * loops; takeover messages from other nodes arrive on the latter.
 */
public final class RedisRouteStore implements RouteStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisRouteStore.class);
    /**
     * How long one route table check may read; past it, what was found so far is reported as incomplete. With the
     * settle time after it, the answer comes within the default admin.idle-timeout (30 s) and the CLI's timeout.
     */
    public static final Duration VERIFY_BOUND = Duration.ofSeconds(20);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final Duration shutdownTimeout;
    private final RedissonClient client;
    private final RouteKeys keys;
    private final RouteQueue queue;
    private final RouteTableMetrics metrics;
    private final RouteFlusher flusher;
    private final RedisOperationForwarding forwarding;
    private final AtomicLong lastDropLogged = new AtomicLong();
    private final AtomicLong unloggedDrops = new AtomicLong();
    private final AtomicBoolean verifying = new AtomicBoolean();
    private volatile RouteEvents events;
    private TakeoverSubscription subscription;
    private CompletableFuture<Void> closed;

    public RedisRouteStore(RedisRouteSettings settings, String nodeId, Duration shutdownTimeout,
                           RedissonClient client, MeterRegistry meters) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.shutdownTimeout = shutdownTimeout;
        this.client = client;
        this.keys = new RouteKeys(settings.keyPrefix());
        this.queue = new RouteQueue(settings.queueCapacity());
        this.metrics = new RouteTableMetrics(meters, queue::size, this::pendingOperations);
        String runId = nodeId + "/" + ProcessHandle.current().pid() + "/" + System.currentTimeMillis();
        this.flusher = new RouteFlusher(settings, nodeId, runId, client, queue, metrics);
        this.forwarding = new RedisOperationForwarding(client, nodeId, new RedisOperationForwarding.Channels() {
            @Override
            public String request(String node) {
                return keys.operationsChannel(node);
            }

            @Override
            public String reply(String node) {
                return keys.operationRepliesChannel(node);
            }
        }, settings.forwardMaxInFlight(), flusher::connected, new DeadNodeVerdict(client, keys),
                publishCountsEverySubscriber(settings), meters);
    }

    /**
     * Whether 0 receivers of a PUBLISH proves that the holder does not listen, so a request to it can be answered at
     * once instead of after its whole bound, also in the first {@code node-ttl} after a crash, before the fleet can
     * find the holder dead ({@link DeadNodeVerdict} answers on every topology from then on). Only with one standalone
     * server: there PUBLISH counts every client that
     * got the message. In Redis Cluster it counts only the clients of the node that took the PUBLISH, while the
     * cluster bus delivers the message to the subscribers of every other node, so a holder subscribed elsewhere (a
     * topology change, a replica under subscription mode SLAVE) hears it while the asker reads 0. With Sentinel a
     * PUBLISH is replicated to the replicas and delivered to their subscribers uncounted: a holder still subscribed
     * to the demoted master during a failover, or to a replica by configuration, hears it too. There, and where a
     * Redisson file sets the topology, the asker keeps waiting for the answer or the bound.
     */
    static boolean publishCountsEverySubscriber(RedisRouteSettings settings) {
        return settings.configFile() == null && "standalone".equals(settings.mode());
    }

    /**
     * The persistent sessions are in this Redis too ({@code session.provider: redis}): when this node removes a dead
     * node's routes it also starts the expiry ({@code session.expiry}) of the sessions that node's devices held, which
     * would otherwise never expire. Call before {@link #start}.
     */
    public void expireDeadNodeSessions(Duration expiry) {
        flusher.expireDeadNodeSessions(new io.mqttgw.routing.session.SessionKeys(settings.keyPrefix()), expiry);
    }

    @Override
    public synchronized void start(RouteEvents events) {
        if (flusher.started()) {
            throw new IllegalStateException("route store already started");
        }
        this.events = events;
        subscription = new TakeoverSubscription(client, keys.takeoverChannel(nodeId), events,
                metrics.takeoversReceived);
        // subscribed from the flusher once Redis answered: the client connects lazily, and its first call blocks
        flusher.start(events, () -> {
            subscription.ensure();
            forwarding.ensure();
        });
    }

    @Override
    public CompletionStage<Void> put(Route route) {
        return enqueue(RouteOp.put(route));
    }

    @Override
    public CompletionStage<Void> remove(Route route) {
        return enqueue(RouteOp.delete(route));
    }

    private RouteOp enqueue(RouteOp op) {
        int n = queue.offer(op);
        if (flusher.ended()) {
            // the flusher is gone: settle it here, as the flusher settled what came during its last clean-up
            flusher.afterEnd();
            return op;
        }
        if (n < 0) {
            (op.kind() == RouteOp.Kind.PUT ? metrics.putDropped : metrics.deleteDropped).increment();
            flusher.overflowed();
            logDrop();
            op.completeExceptionally(RouteQueueFullException.INSTANCE);
        } else if (n == 1 || n % settings.batchSize() == 0) {
            flusher.wake();
        }
        return op;
    }

    private void logDrop() {
        long now = System.nanoTime();
        long last = lastDropLogged.get();
        if ((last == 0 || now - last >= LOG_INTERVAL_NANOS) && lastDropLogged.compareAndSet(last, now)) {
            long more = unloggedDrops.getAndSet(0);
            LOG.warn("route queue full ({} operations wait for Redis): dropping route operations{}; this node's "
                    + "routes are resynchronised once Redis keeps up", queue.capacity(),
                    more > 0 ? " (" + more + " more since the last report)" : "");
        } else {
            unloggedDrops.incrementAndGet();
        }
    }

    /**
     * One {@code HGETALL}; completes on the Redis client's thread. Fails at once until Redis first answered the
     * flusher, since the lazily connecting client would otherwise make this caller wait for the connection.
     */
    @Override
    public CompletionStage<Optional<Route>> lookup(String clientId) {
        if (!flusher.connected()) {
            return CompletableFuture.failedFuture(new IllegalStateException("redis route table not connected yet"));
        }
        return client.<String, String>getMap(keys.route(clientId), StringCodec.INSTANCE).readAllMapAsync()
                .thenApply(fields -> toRoute(clientId, fields));
    }

    static Optional<Route> toRoute(String clientId, Map<String, String> fields) {
        String node = fields.get("node");
        String epoch = fields.get("epoch");
        if (node == null || epoch == null) {
            return Optional.empty();
        }
        String connectedAt = fields.get("connected_at");
        IdentityProof proof = "no_certificate".equals(fields.get("proof")) ? IdentityProof.NO_CERTIFICATE
                : IdentityProof.CERTIFICATE;
        return Optional.of(new Route(clientId, node, Long.parseLong(epoch),
                connectedAt == null ? 0 : Long.parseLong(connectedAt), fields.getOrDefault("remote", ""), proof));
    }

    /**
     * Runs a {@link RouteVerifier} on a thread of its own ({@code redis-route-verify}), bounded by
     * {@link #VERIFY_BOUND}; differences are confirmed after a heartbeat interval (at least twice the flush interval).
     */
    @Override
    public CompletionStage<RouteCheck> verify(boolean repair) {
        RouteEvents node = events;
        if (node == null || !flusher.connected()) {
            return CompletableFuture.failedFuture(new IllegalStateException("redis route table not connected yet"));
        }
        if (!verifying.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new RouteCheck.AlreadyRunning());
        }
        Duration settle = settings.heartbeatInterval().compareTo(settings.flushInterval().multipliedBy(2)) > 0
                ? settings.heartbeatInterval() : settings.flushInterval().multipliedBy(2);
        CompletableFuture<RouteCheck> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            RouteCheck check = null;
            Throwable failure = null;
            try {
                check = new RouteVerifier(settings, nodeId, client, node, settle, VERIFY_BOUND).run(repair);
            } catch (Throwable e) {
                failure = e;
            }
            // free before answering: whoever was answered may ask again at once
            verifying.set(false);
            if (failure == null) {
                result.complete(check);
            } else {
                result.completeExceptionally(failure);
            }
        }, "redis-route-verify");
        t.setDaemon(true);
        t.start();
        return result;
    }

    /** Downlinks and kicks for devices of other nodes go to those nodes through Redis pub/sub. */
    @Override
    public Optional<OperationForwarding> forwarding() {
        return Optional.of(forwarding);
    }

    @Override
    public HealthStatus health() {
        long since = flusher.failingSinceNanos();
        if (since != 0) {
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);
            return HealthStatus.degraded("redis: " + flusher.lastError() + " for " + seconds + " s; "
                    + (queue.size() + flusher.pendingOperations()) + " route operations waiting");
        }
        if (flusher.connected() && subscription != null && !subscription.subscribed()) {
            return HealthStatus.degraded("takeover channel " + keys.takeoverChannel(nodeId) + " not subscribed");
        }
        if (flusher.connected() && !forwarding.subscribed()) {
            return HealthStatus.degraded("operation channels " + keys.operationsChannel(nodeId) + " and "
                    + keys.operationRepliesChannel(nodeId) + " not subscribed");
        }
        if (flusher.overflowPending()) {
            return HealthStatus.degraded("route queue was full: " + flusher.droppedSinceResync()
                    + " route operations dropped; resync of this node's routes pending");
        }
        return HealthStatus.UP;
    }

    /**
     * Flushes what is queued, deletes this node's remaining routes, heartbeat and membership in pipelines, then
     * stops the Redis client. Gives up after {@code shutdown.timeout} (operations not stored are counted as
     * abandoned; the heartbeat then expires and other nodes remove the routes).
     */
    @Override
    public synchronized CompletionStage<Void> close() {
        if (closed != null) {
            return closed;
        }
        // operations forwarded to or from this node end now: the devices are being closed anyway
        forwarding.close();
        CompletableFuture<Void> flushed;
        if (flusher.started()) {
            flusher.close(System.nanoTime() + shutdownTimeout.toNanos());
            flushed = flusher.closed;
        } else {
            flushed = CompletableFuture.completedFuture(null);
        }
        closed = flushed.thenRunAsync(() -> {
            if (subscription != null) {
                subscription.close();
            }
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }, task -> {
            Thread t = new Thread(task, "redis-route-close");
            t.setDaemon(true);
            t.start();
        });
        return closed;
    }

    /** How full the queue is, 0 to 1: an overload signal for the node. */
    @Override
    public double pressure() {
        return Math.min(1.0, queue.size() / (double) queue.capacity());
    }

    /** Operations the flusher holds (coalesced) and Redis has not yet stored; read by a gauge when scraped. */
    private int pendingOperations() {
        return flusher.pendingOperations();
    }

    /** Operations queued by event loops and not yet taken by the flusher. */
    public int queued() {
        return queue.size();
    }
}
