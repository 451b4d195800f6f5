package io.mqttgw.routing.redis;

import io.mqttgw.core.retry.FullJitterBackoff;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.route.RouteCoalescer;
import io.mqttgw.routing.route.RouteOp;
import io.mqttgw.routing.route.RouteQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RBatch;
import org.redisson.api.RBucketAsync;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one background thread between the queue and Redis. It takes what the event loops queued when a batch is full
 * ({@code batch-size}) or its oldest operation has waited {@code flush-interval}, coalesces per device, and sends
 * pipelines through {@link ShardPipelines}: one in flight per shard, so a Redis Cluster master failing over holds up
 * only its own slots. A failed pipeline is kept and sent again after a full-jitter backoff; while Redis is down
 * the queue keeps taking operations up to its bound. Between flushes (no pipeline in flight) it resynchronises
 * this node's routes when they may have drifted (startup, recovery, queue overflow, heartbeat key lost), and removes
 * the routes of dead nodes, each in chunks of {@code batch-size} so flushes are never held up long. Which node is
 * dead is {@link NodeLiveness}'s rule, fed by this thread's looks at the other nodes' heartbeats. The node's
 * heartbeat is not its job: {@link NodeHeartbeat} refreshes it on its own schedule, so a backlog here cannot starve it.
 */
final class RouteFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RouteFlusher.class);
    private static final long NONE = Long.MIN_VALUE;

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final String runId;
    private final RouteKeys keys;
    private final RedissonClient client;
    private final RouteQueue queue;
    private final RouteTableMetrics metrics;
    private final RouteBatches batches;
    private final FullJitterBackoff backoff;
    private final RouteCoalescer coalescer = new RouteCoalescer();
    private final ShardPipelines pipelines;
    private final ShardPipelines.Listener flushes = new ShardPipelines.Listener() {
        @Override
        public void stored(List<Map.Entry<String, RouteCoalescer.Pending>> devices) {
            if (resync != null) {
                devices.forEach(e -> resync.touched.add(e.getKey()));
            }
            // while another shard still fails, Redis is not back as a whole: no recovery resync yet
            if (!pipelines.anyFailing()) {
                succeeded();
            } else if (!connected) {
                markConnected();
            }
        }

        @Override
        public void failed(String what, Exception e) {
            noteFailure(what, e);
        }
    };
    private final long intervalNanos;
    private final long heartbeatNanos;
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    private static final IllegalStateException CLOSED = new IllegalStateException(
            "route store closed before Redis took it");
    private final AtomicLong abandoned = new AtomicLong();
    /** The clean-up at shutdown deleted every route of this node. */
    private volatile boolean cleanedUp;
    private volatile boolean ended;

    private volatile RouteEvents events;
    private volatile Runnable onHealthy = () -> { };
    private volatile Thread thread;
    private volatile boolean closing;
    private volatile long closeDeadlineNanos;
    /** When Redis started failing (System.nanoTime), 0 while it answers. */
    private volatile long failingSinceNanos;
    private volatile String lastError = "";
    /** Set by event loops when the queue overflowed; cleared when the resync that repairs it starts. */
    private volatile boolean overflowed;
    private final AtomicLong droppedSinceResync = new AtomicLong();
    private volatile int pendingOperations;
    /** Redis answered once: the client is connected, and calls from other threads no longer wait for it. */
    private volatile boolean connected;

    private boolean resyncWanted = true;
    private Resync resync;
    private DeadNodeCleanup cleanup;
    private int attempt;
    private long retryAtNanos = NONE;
    private long batchDeadlineNanos = NONE;
    private long nextDeadNodeCheckNanos = System.nanoTime();
    /** Set by the heartbeat thread when the heartbeat key was lost; taken over into resyncWanted by the flusher. */
    private volatile boolean resyncRequested;
    private final NodeHeartbeat heartbeat;
    private final NodeLiveness liveness;

    RouteFlusher(RedisRouteSettings settings, String nodeId, String runId, RedissonClient client, RouteQueue queue,
                 RouteTableMetrics metrics) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.runId = runId;
        this.keys = new RouteKeys(settings.keyPrefix());
        this.client = client;
        this.queue = queue;
        this.metrics = metrics;
        this.batches = new RouteBatches(client, keys, nodeId, settings.timeout());
        this.backoff = new FullJitterBackoff(settings.retryMinDelay(), settings.retryMaxDelay());
        this.pipelines = new ShardPipelines(batches, new ClusterShards(client, settings.timeout().toMillis()), keys,
                nodeId, metrics, backoff, settings.batchSize(), settings.timeout().toMillis(), this::wake);
        this.intervalNanos = settings.flushInterval().toNanos();
        this.heartbeatNanos = settings.heartbeatInterval().toNanos();
        this.liveness = new NodeLiveness(settings.nodeTtl().toNanos());
        this.heartbeat = new NodeHeartbeat(settings, nodeId, runId, client, metrics, new NodeHeartbeat.Listener() {
            @Override
            public void answered() {
                markConnected();
            }

            @Override
            public void keyWasLost() {
                // Redis lost data: the other nodes' keys may be gone too while those nodes are alive
                liveness.restart();
                resyncRequested = true;
                wake();
            }

            @Override
            public void failed() {
                liveness.restart();
            }
        });
    }

    /** Redis answered (the heartbeat thread, or this one): lookups may go ahead, the takeover channel subscribe. */
    private void markConnected() {
        if (!connected) {
            connected = true;
        }
        onHealthy.run();
    }

    void start(RouteEvents events, Runnable onHealthy) {
        this.events = events;
        this.onHealthy = onHealthy;
        Thread t = new Thread(this, "redis-route-flusher");
        t.setDaemon(true);
        thread = t;
        t.start();
        heartbeat.start();
    }

    boolean started() {
        return thread != null;
    }

    /** Event loops: the queue just got its first operation or a full batch. */
    void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Event loops: an operation was dropped because the queue was full. */
    void overflowed() {
        overflowed = true;
        droppedSinceResync.incrementAndGet();
    }

    void close(long deadlineNanos) {
        closeDeadlineNanos = deadlineNanos;
        closing = true;
        wake();
    }

    long failingSinceNanos() {
        return failingSinceNanos;
    }

    String lastError() {
        return lastError;
    }

    boolean overflowPending() {
        return overflowed || droppedSinceResync.get() > 0;
    }

    long droppedSinceResync() {
        return droppedSinceResync.get();
    }

    boolean connected() {
        return connected;
    }

    int pendingOperations() {
        return pendingOperations;
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (Throwable t) {
            LOG.error("route flusher stopped by an unexpected error; routes are no longer written", t);
            failingSinceNanos = System.nanoTime();
            lastError = "flusher stopped: " + t;
        } finally {
            heartbeat.stop(0);
            java.util.function.Consumer<RouteOp> count = op -> {
                (op.kind() == RouteOp.Kind.PUT ? metrics.putAbandoned : metrics.deleteAbandoned).increment();
                abandoned.incrementAndGet();
            };
            coalescer.failAll(CLOSED, count);
            pipelines.failAll(CLOSED, count);
            ended = true;
            long late = afterEnd();
            if (abandoned.get() > 0) {
                LOG.warn("route store closed with {} route operations not stored in Redis", abandoned.get());
            } else if (late > 0) {
                LOG.debug("{} route deletes came during the shutdown clean-up, which had deleted their routes", late);
            }
            pendingOperations = 0;
            closed.complete(null);
        }
    }

    /**
     * Settles what was queued after this thread's last flush (the node closes its devices while the store shuts
     * down): a delete is done when the clean-up at shutdown deleted every route of this node; a write is not stored,
     * and neither is anything after a shutdown that gave up. Called by this thread as it ends and, after that, by
     * whoever queues; answers how many deletes were done so.
     */
    long afterEnd() {
        long done = 0;
        RouteOp op;
        while ((op = queue.poll()) != null) {
            if (op.kind() == RouteOp.Kind.DELETE && cleanedUp) {
                op.complete(null);
                done++;
            } else {
                (op.kind() == RouteOp.Kind.PUT ? metrics.putAbandoned : metrics.deleteAbandoned).increment();
                abandoned.incrementAndGet();
                op.completeExceptionally(CLOSED);
            }
        }
        return done;
    }

    /** This thread has ended: nothing queued from now on is flushed ({@link #afterEnd}). */
    boolean ended() {
        return ended;
    }

    private void loop() {
        while (true) {
            long now = System.nanoTime();
            boolean stopping = closing;
            if (batchDeadlineNanos == NONE && (queue.size() > 0 || !coalescer.isEmpty())) {
                batchDeadlineNanos = now + intervalNanos;
            }
            boolean mayTalk = retryAtNanos == NONE || now - retryAtNanos >= 0;
            pipelines.poll(flushes);
            boolean due = batchDeadlineNanos != NONE
                    && (stopping || now - batchDeadlineNanos >= 0 || queue.size() >= settings.batchSize());
            if (due && mayTalk) {
                flushPending();
                now = System.nanoTime();
                batchDeadlineNanos = queue.size() == 0 && coalescer.isEmpty() ? NONE : now + intervalNanos;
                mayTalk = retryAtNanos == NONE;
            }
            pendingOperations = coalescer.operations() + pipelines.operations();
            if (mayTalk && !stopping && coalescer.isEmpty() && pipelines.isEmpty()) {
                if (resyncRequested) {
                    resyncRequested = false;
                    resyncWanted = true;
                }
                if (now - nextDeadNodeCheckNanos >= 0) {
                    deadNodeCheck();
                } else if (resync == null && (resyncWanted || overflowed)) {
                    startResync();
                } else if (resync != null) {
                    resyncStep();
                } else if (cleanup != null) {
                    cleanupStep();
                }
            }
            if (stopping) {
                if (queue.size() == 0 && coalescer.isEmpty() && pipelines.isEmpty() && mayTalk) {
                    finish();
                    return;
                }
                if (now - closeDeadlineNanos >= 0) {
                    LOG.warn("route store gives up at shutdown: Redis did not take {} operations ({})",
                            coalescer.operations() + pipelines.operations() + queue.size(), lastError);
                    return;
                }
            }
            park(now);
        }
    }

    private void park(long now) {
        if (busy()) {
            return;
        }
        long until;
        if (retryAtNanos != NONE) {
            until = retryAtNanos;
        } else if (batchDeadlineNanos != NONE) {
            until = earliest(nextDeadNodeCheckNanos, batchDeadlineNanos);
        } else {
            until = nextDeadNodeCheckNanos;
        }
        if (!pipelines.isEmpty()) {
            // an answer wakes this thread; a pipeline's own timeout and retry are checked at least this often
            long retry = pipelines.nextRetryNanos();
            until = earliest(until, retry != NONE ? retry : now + TimeUnit.MILLISECONDS.toNanos(100));
            until = earliest(until, now + TimeUnit.MILLISECONDS.toNanos(100));
        }
        if (closing) {
            until = earliest(until, now + TimeUnit.MILLISECONDS.toNanos(50));
        }
        long wait = until - now;
        if (wait > 0) {
            LockSupport.parkNanos(this, wait);
        }
    }

    /** Work that can go on at once: a resync or cleanup chunk with Redis answering and nothing due to flush. */
    private boolean busy() {
        return retryAtNanos == NONE && coalescer.isEmpty() && pipelines.isEmpty() && !closing
                && (resync != null || cleanup != null || resyncWanted || overflowed);
    }

    private static long earliest(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    // ---- flushing

    private void drain() {
        int limit = queue.capacity();
        RouteOp op;
        while (coalescer.devices() < limit && (op = queue.poll()) != null) {
            switch (coalescer.add(op)) {
                case SUPERSEDED -> metrics.putCoalesced.increment();
                case CANCELLED -> {
                    metrics.putCoalesced.increment();
                    metrics.deleteCoalesced.increment();
                }
                default -> { }
            }
        }
        pendingOperations = coalescer.operations();
    }

    /**
     * Sends what is pending, a pipeline per shard that has none in flight ({@link ShardPipelines}); never waits
     * for an answer, so a shard that does not answer holds up no other.
     */
    private void flushPending() {
        drain();
        pipelines.sendNew(coalescer, connected, flushes);
        pendingOperations = coalescer.operations() + pipelines.operations();
    }

    private void succeeded() {
        if (!connected) {
            markConnected();
        }
        if (failingSinceNanos != 0) {
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - failingSinceNanos);
            LOG.info("Redis answers again after {} s; resynchronising this node's routes", seconds);
            failingSinceNanos = 0;
            // Redis may have lost data while it was away: a resync under way works from a stale picture, and what
            // this node saw of the others' heartbeats before says nothing about the data set it now reads
            liveness.restart();
            resync = null;
            resyncWanted = true;
            onHealthy.run();
        }
        attempt = 0;
        retryAtNanos = NONE;
    }

    private void failed(String what, Exception e) {
        attempt++;
        retryAtNanos = System.nanoTime() + backoff.delayNanos(attempt);
        noteFailure(what, e);
    }

    /** Counts, logs and reports a failure; the caller decides when to try again. */
    private void noteFailure(String what, Exception e) {
        metrics.batchFailures.increment();
        liveness.restart();
        long now = System.nanoTime();
        lastError = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (failingSinceNanos == 0) {
            failingSinceNanos = now;
            LOG.warn("Redis route table: {} failed ({}); retrying with backoff, {} operations waiting", what,
                    lastError, coalescer.operations() + queue.size());
        } else {
            LOG.debug("Redis route table: {} failed again: {}", what, lastError);
        }
    }

    // ---- heartbeat and dead nodes

    /** Looks for a dead node to clean up, every heartbeat interval (the heartbeat itself is {@link NodeHeartbeat}). */
    private void deadNodeCheck() {
        nextDeadNodeCheckNanos = System.nanoTime() + heartbeatNanos;
        if (settings.deadNodeCleanup() && cleanup == null) {
            findDeadNode();
        }
    }

    /**
     * Looks at every other node's heartbeat (value and remaining time to live) in one pipeline, together with this
     * node's own key, and claims the cleanup of the first node {@link NodeLiveness} finds dead. The claim is a key set
     * only if absent, with a time to live: one node of the fleet cleans a dead node up.
     */
    private void findDeadNode() {
        try {
            Set<String> nodes = batches.await(client.<String>getSet(keys.nodes(), StringCodec.INSTANCE)
                    .readAllAsync());
            nodes.remove(nodeId);
            liveness.retainOnly(nodes);
            if (nodes.isEmpty()) {
                return;
            }
            RBatch batch = batches.begin();
            RFuture<Long> own = batch.getKeys().countExistsAsync(keys.alive(nodeId));
            Map<String, RFuture<String>> values = new HashMap<>();
            Map<String, RFuture<Long>> ttls = new HashMap<>();
            for (String node : nodes) {
                RBucketAsync<String> key = batch.getBucket(keys.alive(node), StringCodec.INSTANCE);
                values.put(node, key.getAsync());
                ttls.put(node, key.remainTimeToLiveAsync());
            }
            long start = System.nanoTime();
            batches.execute(batch);
            long now = System.nanoTime();
            if (RouteBatches.result(own) == 0L) {
                // this node's own key is gone too: Redis lost data (or this node stalled), so the others' missing
                // keys say nothing yet; the heartbeat thread writes ours again
                liveness.restart();
                return;
            }
            List<String> dead = new ArrayList<>();
            for (String node : nodes) {
                Long ttl = RouteBatches.result(ttls.get(node));
                if (liveness.observe(node, RouteBatches.result(values.get(node)), ttl == null ? -2 : ttl,
                        now - start, now)) {
                    dead.add(node);
                }
            }
            for (String node : dead) {
                if (lock(node)) {
                    LOG.info("node {} is dead (its heartbeat key {} is gone and did not advance for {} s while this "
                            + "node watched it); removing its routes", node, keys.alive(node),
                            liveness.stillSeconds(node, now));
                    cleanup = new DeadNodeCleanup(node);
                    return;
                }
            }
        } catch (Exception e) {
            failed("dead-node check", e);
        }
    }

    /**
     * The claim stays until its time to live runs out, also after the cleanup finished: a node that decided on the
     * same death a moment later finds it taken rather than cleaning the node up a second time.
     */
    private boolean lock(String node) throws Exception {
        return batches.await(client.<String>getBucket(keys.cleanupLock(node), StringCodec.INSTANCE)
                .setIfAbsentAsync(runId, settings.nodeTtl()));
    }

    /** Removes one chunk of a dead node's routes, fenced by its epochs, while its heartbeat stays missing. */
    private void cleanupStep() {
        DeadNodeCleanup c = cleanup;
        try {
            List<ScoredEntry<String>> chunk = new ArrayList<>(batches.await(client
                    .<String>getScoredSortedSet(keys.nodeRoutes(c.node), StringCodec.INSTANCE)
                    .entryRangeAsync(0, settings.batchSize() - 1)));
            long alive = batches.await(client.getKeys().countExistsAsync(keys.alive(c.node)));
            if (alive > 0) {
                LOG.info("node {} is alive again; leaving its routes to it ({} removed)", c.node, c.removed);
                cleanup = null;
                succeeded();
                return;
            }
            if (chunk.isEmpty()) {
                RBatch batch = batches.begin();
                batch.getSet(keys.nodes(), StringCodec.INSTANCE).removeAsync(c.node);
                batches.execute(batch);
                liveness.forget(c.node);
                metrics.deadNodes.increment();
                LOG.info("removed {} routes of dead node {}", c.removed, c.node);
                cleanup = null;
                succeeded();
                return;
            }
            RBatch batch = batches.begin();
            List<RFuture<Long>> results = new ArrayList<>(chunk.size());
            for (ScoredEntry<String> e : chunk) {
                results.add(batches.delete(batch, c.node, e.getValue(), (long) e.getScore().doubleValue()));
            }
            // a long cleanup keeps its claim, so no other node starts on the same one meanwhile
            batch.getBucket(keys.cleanupLock(c.node), StringCodec.INSTANCE).expireAsync(settings.nodeTtl());
            batches.execute(batch);
            long removed = results.stream().filter(r -> RouteBatches.result(r) == 1L).count();
            c.removed += removed;
            metrics.deadNodeRoutes.increment(removed);
            succeeded();
        } catch (Exception e) {
            failed("dead-node cleanup of " + c.node, e);
        }
    }

    private static final class DeadNodeCleanup {
        final String node;
        long removed;

        DeadNodeCleanup(String node) {
            this.node = node;
        }
    }

    // ---- resync

    /**
     * Takes a snapshot of this node's live sessions, then writes them (without taking devices from nodes that
     * connected them later) and deletes this node's indexed routes that are not live. Devices with operations flushed
     * after the snapshot are left to those operations.
     */
    private void startResync() {
        RouteEvents e = events;
        if (e == null) {
            return;
        }
        resyncWanted = false;
        overflowed = false;
        Map<String, Route> live = new HashMap<>();
        e.forEachLiveRoute(r -> live.merge(r.clientId(), r, (a, b) -> a.epoch() >= b.epoch() ? a : b));
        resync = new Resync(live, droppedSinceResync.get());
        metrics.resyncs.increment();
        LOG.debug("resync of node {} started: {} live routes", nodeId, live.size());
    }

    private void resyncStep() {
        Resync r = resync;
        try {
            if (r.toWrite.hasNext()) {
                RBatch batch = batches.begin();
                List<Route> routes = new ArrayList<>(settings.batchSize());
                List<RFuture<Long>> results = new ArrayList<>(settings.batchSize());
                while (r.toWrite.hasNext() && routes.size() < settings.batchSize()) {
                    Route route = r.toWrite.next();
                    if (!r.touched.contains(route.clientId())) {
                        routes.add(route);
                        results.add(batches.put(batch, route, true));
                    }
                }
                batches.execute(batch);
                for (int i = 0; i < routes.size(); i++) {
                    long result = RouteBatches.result(results.get(i));
                    if (result == RouteScripts.PUT_SUPERSEDED) {
                        metrics.resyncSuperseded.increment();
                        events.takenOver(routes.get(i).clientId(), routes.get(i).epoch());
                    } else if (result == RouteScripts.PUT_PROOF_CONFLICT) {
                        metrics.resyncProofConflict.increment();
                        events.refused(routes.get(i).clientId(), routes.get(i).epoch());
                    } else if (result != RouteScripts.PUT_STALE) {
                        r.written++;
                        metrics.resyncWritten.increment();
                    }
                }
                succeeded();
                return;
            }
            List<ScoredEntry<String>> chunk = new ArrayList<>(batches.await(client
                    .<String>getScoredSortedSet(keys.nodeRoutes(nodeId), StringCodec.INSTANCE)
                    .entryRangeAsync(r.afterScore, false, Double.POSITIVE_INFINITY, true, 0, settings.batchSize())));
            if (chunk.isEmpty()) {
                LOG.info("resync of node {} done: {} live routes written, {} stale routes deleted{}", nodeId,
                        r.written, r.deleted, r.dropped > 0 ? " (after " + r.dropped + " dropped operations)" : "");
                droppedSinceResync.addAndGet(-r.dropped);
                resync = null;
                succeeded();
                return;
            }
            r.afterScore = chunk.get(chunk.size() - 1).getScore();
            RBatch batch = batches.begin();
            List<RFuture<Long>> results = new ArrayList<>();
            for (ScoredEntry<String> e : chunk) {
                String clientId = e.getValue();
                long epoch = (long) e.getScore().doubleValue();
                Route live = r.live.get(clientId);
                if (r.touched.contains(clientId) || live != null && live.epoch() == epoch) {
                    continue;
                }
                results.add(batches.delete(batch, clientId, epoch));
            }
            if (!results.isEmpty()) {
                batches.execute(batch);
                long deleted = results.stream().filter(f -> RouteBatches.result(f) == 1L).count();
                r.deleted += deleted;
                metrics.resyncDeleted.increment(deleted);
            }
            succeeded();
        } catch (Exception e) {
            failed("resync", e);
        }
    }

    private static final class Resync {
        final Map<String, Route> live;
        final Iterator<Route> toWrite;
        final Set<String> touched = new HashSet<>();
        final long dropped;
        double afterScore = Double.NEGATIVE_INFINITY;
        long written;
        long deleted;

        Resync(Map<String, Route> live, long dropped) {
            this.live = live;
            this.toWrite = new ArrayList<>(live.values()).iterator();
            this.dropped = dropped;
        }
    }

    // ---- shutdown

    /** Clean shutdown: this node's remaining routes are deleted in pipelines, then its heartbeat and membership. */
    private void finish() {
        // no refresh may recreate the heartbeat key after it is deleted below
        heartbeat.stop(Math.max(0, TimeUnit.NANOSECONDS.toMillis(closeDeadlineNanos - System.nanoTime())));
        try {
            long deleted = 0;
            double after = Double.NEGATIVE_INFINITY;
            boolean all = false;
            while (System.nanoTime() - closeDeadlineNanos < 0) {
                List<ScoredEntry<String>> chunk = new ArrayList<>(batches.await(client
                        .<String>getScoredSortedSet(keys.nodeRoutes(nodeId), StringCodec.INSTANCE)
                        .entryRangeAsync(after, false, Double.POSITIVE_INFINITY, true, 0, settings.batchSize())));
                if (chunk.isEmpty()) {
                    all = true;
                    break;
                }
                after = chunk.get(chunk.size() - 1).getScore();
                RBatch batch = batches.begin();
                List<RFuture<Long>> results = new ArrayList<>(chunk.size());
                for (ScoredEntry<String> e : chunk) {
                    results.add(batches.delete(batch, e.getValue(), (long) e.getScore().doubleValue()));
                }
                batches.execute(batch);
                deleted += results.stream().filter(f -> RouteBatches.result(f) == 1L).count();
            }
            RBatch batch = batches.begin();
            batch.getBucket(keys.alive(nodeId), StringCodec.INSTANCE).deleteAsync();
            batch.getSet(keys.nodes(), StringCodec.INSTANCE).removeAsync(nodeId);
            batches.execute(batch);
            cleanedUp = all;
            if (!all) {
                LOG.warn("route store of node {}: clean-up at shutdown ran out of time after deleting {} routes; the "
                        + "routes left name a node whose heartbeat is gone, so other nodes remove them", nodeId,
                        deleted);
            } else {
                LOG.info("route store of node {} closed{}", nodeId,
                        deleted > 0 ? "; " + deleted + " routes of sessions still open were deleted" : "");
            }
        } catch (Exception e) {
            LOG.warn("route store of node {}: clean-up at shutdown failed ({}); the routes left name a node whose "
                    + "heartbeat expires, so other nodes remove them", nodeId, e.toString());
        }
    }
}
