package io.mqttgw.routing.redis;

import io.mqttgw.routing.route.RouteOp;
import io.mqttgw.routing.route.RouteQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the route store leaves behind when it closes. On a clean shutdown this node's remaining routes are deleted in
 * pipelines, then its heartbeat and membership ({@link #deleteRoutes}); then every operation Redis did not take is
 * settled: a delete queued after the clean-up deleted every route of this node is done, anything else fails with
 * {@link #CLOSED} and is counted as abandoned.
 *
 * <p>{@link #deleteRoutes} runs on the flusher thread ({@code redis-route-flusher}) as it ends; {@link #settleQueued}
 * on that thread as it ends and, after that, on the event loops that still queue.
 */
final class ShutdownCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(ShutdownCleanup.class);
    static final IllegalStateException CLOSED = new IllegalStateException("route store closed before Redis took it");

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final RouteKeys keys;
    private final NodeRouteIndex index;
    private final RouteBatches batches;
    private final RouteTableMetrics metrics;
    private final NodeHeartbeat heartbeat;
    private final AtomicLong abandoned = new AtomicLong();
    /** The clean-up at shutdown deleted every route of this node. */
    private volatile boolean cleanedUp;

    ShutdownCleanup(RedisRouteSettings settings, String nodeId, RouteKeys keys, RedissonClient client,
                    RouteBatches batches, RouteTableMetrics metrics, NodeHeartbeat heartbeat) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.keys = keys;
        this.index = new NodeRouteIndex(client, keys, batches, settings.batchSize());
        this.batches = batches;
        this.metrics = metrics;
        this.heartbeat = heartbeat;
    }

    /** Clean shutdown: this node's remaining routes are deleted in pipelines, then its heartbeat and membership. */
    void deleteRoutes(long deadlineNanos) {
        // no refresh may recreate the heartbeat key after it is deleted below
        heartbeat.stop(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        try {
            long deleted = 0;
            NodeRouteIndex.Cursor at = index.start(nodeId);
            boolean all = false;
            while (System.nanoTime() - deadlineNanos < 0) {
                NodeRouteIndex.Chunk chunk = index.read(at);
                if (chunk.end()) {
                    all = true;
                    break;
                }
                at = chunk.next();
                if (chunk.entries().isEmpty()) {
                    continue;
                }
                RBatch batch = batches.begin();
                List<RFuture<Long>> results = new ArrayList<>(chunk.entries().size());
                for (NodeRouteIndex.Entry e : chunk.entries()) {
                    results.add(batches.delete(batch, nodeId, e.clientId(), e.epoch(), e.legacy()));
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

    /** Counts an operation Redis did not take; the caller fails it. */
    void abandon(RouteOp op) {
        (op.kind() == RouteOp.Kind.PUT ? metrics.putAbandoned : metrics.deleteAbandoned).increment();
        abandoned.incrementAndGet();
    }

    /**
     * Settles what was queued after the flusher's last flush (the node closes its devices while the store shuts
     * down): a delete is done when the clean-up at shutdown deleted every route of this node; a write is not stored,
     * and neither is anything after a shutdown that gave up. Answers how many deletes were done so.
     */
    long settleQueued(RouteQueue queue) {
        long done = 0;
        RouteOp op;
        while ((op = queue.poll()) != null) {
            if (op.kind() == RouteOp.Kind.DELETE && cleanedUp) {
                op.complete(null);
                done++;
            } else {
                abandon(op);
                op.completeExceptionally(CLOSED);
            }
        }
        return done;
    }

    /** Operations that were never stored in Redis since the store closed. */
    long abandoned() {
        return abandoned.get();
    }
}
