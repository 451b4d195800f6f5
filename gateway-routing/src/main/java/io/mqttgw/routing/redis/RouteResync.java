package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.route.RouteCoalescer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings this node's routes in Redis back in line with its live sessions when they may have drifted: at startup,
 * after Redis came back or lost data, and after the queue overflowed. A resync takes a snapshot of the live sessions,
 * writes them (without taking devices from nodes that connected them later), then deletes this node's indexed routes
 * that are not live; devices with operations stored or in flight after the snapshot are left to those operations. It
 * goes in chunks of {@code batch-size}, one {@link #step} at a time, as exchanges the flusher does not wait for
 * ({@link RedisExchange}): flushes go on while Redis answers, and a chunk of writes, all of one shard, holds its
 * devices' newer operations back until it is answered.
 *
 * <p>Runs on the flusher thread ({@code redis-route-flusher}), between flushes; {@link #request} (the heartbeat
 * thread), {@link #overflowed} (event loops) and the read-only counters are safe from any thread.
 */
final class RouteResync {
    private static final Logger LOG = LoggerFactory.getLogger(RouteResync.class);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final NodeRouteIndex index;
    private final RouteBatches batches;
    private final RouteTableMetrics metrics;
    private final RouteKeys keys;
    private final ShardPipelines pipelines;
    private final ClusterShards shards;

    /** Set by event loops when the queue overflowed; cleared when the resync that repairs it starts. */
    private volatile boolean overflowed;
    private final AtomicLong droppedSinceResync = new AtomicLong();
    /** Set by the heartbeat thread when the heartbeat key was lost; taken over into {@link #wanted} by the flusher. */
    private volatile boolean requested;
    private boolean wanted = true;
    private Run run;

    RouteResync(RedisRouteSettings settings, String nodeId, RouteKeys keys, RedissonClient client,
                RouteBatches batches, RouteTableMetrics metrics, ShardPipelines pipelines, ClusterShards shards) {
        this.settings = settings;
        this.keys = keys;
        this.pipelines = pipelines;
        this.shards = shards;
        this.nodeId = nodeId;
        this.index = new NodeRouteIndex(client, keys, batches, settings.batchSize());
        this.batches = batches;
        this.metrics = metrics;
    }

    /** Any thread: Redis lost data, so this node's routes must be written again. */
    void request() {
        requested = true;
    }

    /** Event loops: an operation was dropped because the queue was full. */
    void overflowed() {
        overflowed = true;
        droppedSinceResync.incrementAndGet();
    }

    boolean overflowPending() {
        return overflowed || droppedSinceResync.get() > 0;
    }

    long droppedSinceResync() {
        return droppedSinceResync.get();
    }

    /** Takes over a request from another thread; the flusher calls it only when it may talk to Redis. */
    void takeRequest() {
        if (requested) {
            requested = false;
            wanted = true;
        }
    }

    /**
     * Redis answers again after failing: it may have lost data while it was away, so a resync under way works from a
     * stale picture and a new one is due.
     */
    void restart() {
        run = null;
        wanted = true;
    }

    boolean shouldStart() {
        return run == null && (wanted || overflowed);
    }

    /** A resync is under way or due: work the flusher can go on with at once. */
    boolean hasWork() {
        return run != null || wanted || overflowed;
    }

    boolean running() {
        return run != null;
    }

    /** Devices whose operations Redis just stored: the resync under way leaves them to those operations. */
    void stored(List<Map.Entry<String, RouteCoalescer.Pending>> devices) {
        Run r = run;
        if (r != null) {
            devices.forEach(e -> r.touched.add(e.getKey()));
        }
    }

    /** Takes the snapshot of this node's live sessions; nothing yet if the gateway has not started the store. */
    void start(RouteEvents events) {
        if (events == null) {
            return;
        }
        wanted = false;
        overflowed = false;
        Map<String, Route> live = new HashMap<>();
        events.forEachLiveRoute(r -> live.merge(r.clientId(), r, (a, b) -> a.epoch() >= b.epoch() ? a : b));
        run = new Run(events, live, bySlot(live.values()), droppedSinceResync.get(), index.start(nodeId));
        metrics.resyncs.increment();
        LOG.debug("resync of node {} started: {} live routes", nodeId, live.size());
    }

    /**
     * The next chunk: the live routes of one shard to write, or a read of the index and the deletes it calls for. A
     * failure leaves the resync where it was, to be tried again after a backoff (one after Redis failed is dropped
     * for a new one: {@link #restart}).
     */
    RedisExchange<?> step() throws Exception {
        Run r = run;
        if (r.next < r.toWrite.size()) {
            return batches.withScripts(() -> writeChunk(r));
        }
        return RedisExchange.of(index.readAsync(r.at), chunk -> deleteChunk(r, chunk));
    }

    private RedisExchange<?> deleteChunk(Run r, NodeRouteIndex.Chunk chunk) throws Exception {
        if (run != r) {
            // Redis failed meanwhile and a new resync is due
            return null;
        }
        if (chunk.end()) {
            LOG.info("resync of node {} done: {} live routes written, {} stale routes deleted{}", nodeId,
                    r.written, r.deleted, r.dropped > 0 ? " (after " + r.dropped + " dropped operations)" : "");
            droppedSinceResync.addAndGet(-r.dropped);
            run = null;
            return null;
        }
        List<NodeRouteIndex.Entry> stale = new ArrayList<>();
        List<NodeRouteIndex.Entry> legacyLive = new ArrayList<>();
        for (NodeRouteIndex.Entry e : chunk.entries()) {
            Route live = r.live.get(e.clientId());
            // a device whose operations are in flight is left to them as one whose operations were stored: the read
            // may have met what they wrote
            if (r.touched.contains(e.clientId()) || pipelines.holds(e.clientId())
                    || live != null && live.epoch() == e.epoch()) {
                if (e.legacy()) {
                    // the live route was indexed in its slot by this resync's write, or by the newer operation
                    legacyLive.add(e);
                }
                continue;
            }
            stale.add(e);
        }
        if (stale.isEmpty() && legacyLive.isEmpty()) {
            r.at = chunk.next();
            return null;
        }
        return batches.withScripts(() -> {
            RBatch batch = batches.create();
            legacyLive.forEach(e -> batches.removeLegacyEntry(batch, nodeId, e.clientId(), e.epoch()));
            List<RFuture<Long>> results = new ArrayList<>(stale.size());
            for (NodeRouteIndex.Entry e : stale) {
                results.add(batches.delete(batch, nodeId, e.clientId(), e.epoch(), e.legacy()));
            }
            return RedisExchange.of(batch.executeAsync(), answered -> {
                long deleted = results.stream().filter(f -> RouteBatches.result(f) == 1L).count();
                r.deleted += deleted;
                metrics.resyncDeleted.increment(deleted);
                r.at = chunk.next();
                return null;
            });
        });
    }

    /**
     * Up to a chunk of live routes, all of one shard (the snapshot is sorted by slot), so that a shard that does not
     * answer holds up no other's devices; the devices are held in {@link ShardPipelines} until Redis answered, so
     * their newer operations follow the write.
     */
    private RedisExchange<?> writeChunk(Run r) {
        if (run != r) {
            return null;
        }
        List<Route> routes = new ArrayList<>(settings.batchSize());
        String shard = null;
        while (r.next < r.toWrite.size() && routes.size() < settings.batchSize()) {
            Route route = r.toWrite.get(r.next);
            String of = shards.shardOf(keys.route(route.clientId()));
            if (shard == null) {
                shard = of;
            } else if (!shard.equals(of)) {
                break;
            }
            r.next++;
            if (!r.touched.contains(route.clientId()) && !pipelines.holds(route.clientId())) {
                routes.add(route);
            }
        }
        if (routes.isEmpty()) {
            return null;
        }
        RBatch batch = batches.create();
        List<RFuture<Long>> results = new ArrayList<>(routes.size());
        List<String> ids = new ArrayList<>(routes.size());
        for (Route route : routes) {
            results.add(batches.put(batch, route, true));
            ids.add(route.clientId());
        }
        RFuture<?> answer = batch.executeAsync();
        // after the send: nothing else runs on this thread in between, and a send that throws holds nothing
        pipelines.hold(ids);
        return RedisExchange.of(answer, answered -> {
            for (int i = 0; i < routes.size(); i++) {
                long result = RouteBatches.result(results.get(i));
                if (result == RouteScripts.PUT_SUPERSEDED) {
                    metrics.resyncSuperseded.increment();
                    r.events.takenOver(routes.get(i).clientId(), routes.get(i).epoch());
                } else if (result == RouteScripts.PUT_PROOF_CONFLICT) {
                    metrics.resyncProofConflict.increment();
                    r.events.refused(routes.get(i).clientId(), routes.get(i).epoch());
                } else if (result != RouteScripts.PUT_STALE) {
                    r.written++;
                    metrics.resyncWritten.increment();
                }
            }
            return null;
        }, () -> pipelines.release(ids));
    }

    /** The routes sorted by their slot: consecutive routes share a shard, so a chunk of one shard is a run. */
    private List<Route> bySlot(Collection<Route> routes) {
        List<Map.Entry<Integer, Route>> slotted = new ArrayList<>(routes.size());
        for (Route route : routes) {
            slotted.add(Map.entry(ClusterShards.slot(keys.route(route.clientId())), route));
        }
        slotted.sort(Map.Entry.comparingByKey());
        List<Route> sorted = new ArrayList<>(slotted.size());
        slotted.forEach(e -> sorted.add(e.getValue()));
        return sorted;
    }

    private static final class Run {
        final RouteEvents events;
        final Map<String, Route> live;
        /** The live routes sorted by slot, written from {@code next} on. */
        final List<Route> toWrite;
        int next;
        final Set<String> touched = new HashSet<>();
        final long dropped;
        /** Where the read of this node's index stands: advanced once a chunk's deletes were stored. */
        NodeRouteIndex.Cursor at;
        long written;
        long deleted;

        Run(RouteEvents events, Map<String, Route> live, List<Route> toWrite, long dropped, NodeRouteIndex.Cursor at) {
            this.events = events;
            this.live = live;
            this.toWrite = toWrite;
            this.dropped = dropped;
            this.at = at;
        }
    }
}
