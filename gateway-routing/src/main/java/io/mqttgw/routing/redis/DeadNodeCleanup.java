package io.mqttgw.routing.redis;

import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.routing.session.SessionKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.redisson.api.RBatch;
import org.redisson.api.RBucketAsync;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the routes of nodes that died. Every heartbeat interval it looks at the other nodes' heartbeats; which
 * node is dead is {@link NodeLiveness}'s rule. The cleanup of a dead node is claimed in Redis, so one node of the
 * fleet does it, and goes in chunks of {@code batch-size} fenced by the routes' epochs, one {@link #step} at a time,
 * as exchanges the flusher does not wait for ({@link RedisExchange}); it stops as soon as the node's heartbeat comes
 * back. Its deletes need no order against this node's own writes: fenced by the dead node's id and epochs, they are
 * what any other node's writes meet too.
 *
 * <p>Runs on the flusher thread ({@code redis-route-flusher}) only, between flushes.
 */
final class DeadNodeCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(DeadNodeCleanup.class);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final String runId;
    private final RouteKeys keys;
    private final RedissonClient client;
    private final RouteBatches batches;
    private final NodeRouteIndex index;
    private final RouteTableMetrics metrics;
    private final NodeLiveness liveness;
    private final long heartbeatNanos;

    /** The session keys of the devices whose sessions a dead node held, or null when sessions are not in Redis. */
    private volatile SessionKeys sessionKeys;
    private volatile long sessionExpiryMillis;
    private long sessionsExpired;
    private long nextCheckNanos = System.nanoTime();
    /** The node whose routes are being removed, null while none is. */
    private String node;
    /** Where the read of its index stands: advanced once a chunk's deletes were stored. */
    private NodeRouteIndex.Cursor at;
    private long removed;

    DeadNodeCleanup(RedisRouteSettings settings, String nodeId, String runId, RouteKeys keys, RedissonClient client,
                    RouteBatches batches, RouteTableMetrics metrics, NodeLiveness liveness) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.runId = runId;
        this.keys = keys;
        this.client = client;
        this.batches = batches;
        this.index = new NodeRouteIndex(client, keys, batches, settings.batchSize());
        this.metrics = metrics;
        this.liveness = liveness;
        this.heartbeatNanos = settings.heartbeatInterval().toNanos();
    }

    /**
     * Sessions are kept in this Redis too ({@code session.provider: redis}): the persistent sessions the dead node's
     * devices were connected with get {@code expiry} (the longest, {@code session.expiry}: the interval an MQTT 5.0
     * device asked for is the node's to know), as if the devices had disconnected when their routes are removed.
     */
    void expireSessions(SessionKeys keys, Duration expiry) {
        this.sessionExpiryMillis = expiry.toMillis();
        this.sessionKeys = keys;
    }

    /** When the next look at the other nodes' heartbeats is due (System.nanoTime). */
    long nextCheckNanos() {
        return nextCheckNanos;
    }

    /** A dead node's routes are being removed: {@link #step} has work. */
    boolean cleaning() {
        return node != null;
    }

    /** The node being cleaned up, for the failure message. */
    String node() {
        return node;
    }

    /**
     * Looks for a dead node to clean up, every heartbeat interval (the heartbeat itself is {@link NodeHeartbeat}). A
     * failed look is tried again at the next interval.
     */
    RedisExchange<?> check() {
        nextCheckNanos = System.nanoTime() + heartbeatNanos;
        if (!settings.deadNodeCleanup() || node != null) {
            return null;
        }
        return RedisExchange.of(client.<String>getSet(keys.nodes(), StringCodec.INSTANCE).readAllAsync(),
                this::lookAt);
    }

    /**
     * Looks at every other node's heartbeat (value and remaining time to live) in one pipeline, together with this
     * node's own key; then claims the cleanup of the first node {@link NodeLiveness} finds dead.
     */
    private RedisExchange<?> lookAt(Set<String> nodes) {
        nodes.remove(nodeId);
        liveness.retainOnly(nodes);
        if (nodes.isEmpty()) {
            return null;
        }
        RBatch batch = batches.create();
        RFuture<Long> own = batch.getKeys().countExistsAsync(keys.alive(nodeId));
        Map<String, RFuture<String>> values = new HashMap<>();
        Map<String, RFuture<Long>> ttls = new HashMap<>();
        for (String other : nodes) {
            RBucketAsync<String> key = batch.getBucket(keys.alive(other), StringCodec.INSTANCE);
            values.put(other, key.getAsync());
            ttls.put(other, key.remainTimeToLiveAsync());
        }
        long start = System.nanoTime();
        // when the answer arrived, not when the flusher got to it: the time to live read is that old
        return RedisExchange.of(batch.executeAsync().thenApply(answered -> System.nanoTime()), now -> {
            if (RouteBatches.result(own) == 0L) {
                // this node's own key is gone too: Redis lost data (or this node stalled), so the others' missing
                // keys say nothing yet; the heartbeat thread writes ours again
                liveness.restart();
                return null;
            }
            List<String> dead = new ArrayList<>();
            for (String other : nodes) {
                Long ttl = RouteBatches.result(ttls.get(other));
                if (liveness.observe(other, RouteBatches.result(values.get(other)), ttl == null ? -2 : ttl,
                        now - start, now)) {
                    dead.add(other);
                }
            }
            return claim(dead, 0, now);
        });
    }

    /**
     * Claims the cleanup of {@code dead.get(i)}, or of the next one if another node has. The claim is a key set only
     * if absent, with a time to live: one node of the fleet cleans a dead node up. It stays until its time to live
     * runs out, also after the cleanup finished: a node that decided on the same death a moment later finds it taken
     * rather than cleaning the node up a second time. It is the fleet's verdict too: an operation forwarded to the
     * node meanwhile is answered unreachable ({@link DeadNodeVerdict}).
     */
    private RedisExchange<?> claim(List<String> dead, int i, long seenNanos) {
        if (i == dead.size()) {
            return null;
        }
        String other = dead.get(i);
        return RedisExchange.of(client.<String>getBucket(keys.cleanupLock(other), StringCodec.INSTANCE)
                .setIfAbsentAsync(runId, settings.nodeTtl()), won -> {
                    if (!won) {
                        return claim(dead, i + 1, seenNanos);
                    }
                    LOG.info("node {} is dead (its heartbeat key {} is gone and did not advance for {} s while this "
                            + "node watched it); removing its routes", other, keys.alive(other),
                            liveness.stillSeconds(other, seenNanos));
                    node = other;
                    at = index.start(other);
                    removed = 0;
                    sessionsExpired = 0;
                    return null;
                });
    }

    /** One read of the dead node's index, with a look at its heartbeat made at the same time. */
    private record Look(NodeRouteIndex.Chunk chunk, long alive) {
    }

    /**
     * Removes one chunk of the dead node's routes, fenced by its epochs, while its heartbeat stays missing. A failure
     * leaves the cleanup where it was, to be tried again after a backoff.
     */
    RedisExchange<?> step() {
        String dead = node;
        return RedisExchange.of(index.readAsync(at).thenCombine(
                client.getKeys().countExistsAsync(keys.alive(dead)), Look::new), look -> clean(dead, look));
    }

    private RedisExchange<?> clean(String dead, Look look) throws Exception {
        if (look.alive() > 0) {
            LOG.info("node {} is alive again; leaving its routes to it ({} removed)", dead, removed);
            node = null;
            return null;
        }
        NodeRouteIndex.Chunk chunk = look.chunk();
        if (chunk.end()) {
            RBatch batch = batches.create();
            batch.getSet(keys.nodes(), StringCodec.INSTANCE).removeAsync(dead);
            return RedisExchange.of(batch.executeAsync(), answered -> {
                liveness.forget(dead);
                metrics.deadNodes.increment();
                LOG.info("removed {} routes of dead node {}{}", removed, dead, sessionKeys == null ? ""
                        : "; started the expiry of " + sessionsExpired + " persistent sessions it held");
                node = null;
                return null;
            });
        }
        if (chunk.entries().isEmpty()) {
            // slots without routes of the node: nothing to delete, the next window follows
            at = chunk.next();
            return null;
        }
        return batches.withScripts(() -> deleteChunk(dead, chunk));
    }

    private RedisExchange<?> deleteChunk(String dead, NodeRouteIndex.Chunk chunk) {
        RBatch batch = batches.create();
        List<RFuture<Long>> results = new ArrayList<>(chunk.entries().size());
        List<RFuture<Long>> sessions = new ArrayList<>();
        SessionKeys session = sessionKeys;
        for (NodeRouteIndex.Entry e : chunk.entries()) {
            results.add(batches.delete(batch, dead, e.clientId(), e.epoch(), e.legacy()));
            if (session != null) {
                // the index does not say how the device proved its identity: both keys, each fenced by the epoch
                for (IdentityProof proof : IdentityProof.values()) {
                    String key = proof.sessionKey(e.clientId());
                    sessions.add(batch.getScript(StringCodec.INSTANCE).evalAsync(session.session(key),
                            RScript.Mode.READ_WRITE, RouteScripts.SESSION_EXPIRE, RScript.ReturnType.LONG,
                            List.<Object>of(session.session(key), session.pending(key), session.messages(key)),
                            Long.toString(e.epoch()), Long.toString(sessionExpiryMillis)));
                }
            }
        }
        // a long cleanup keeps its claim, so no other node starts on the same one meanwhile
        batch.getBucket(keys.cleanupLock(dead), StringCodec.INSTANCE).expireAsync(settings.nodeTtl());
        return RedisExchange.of(batch.executeAsync(), answered -> {
            long count = results.stream().filter(r -> RouteBatches.result(r) == 1L).count();
            removed += count;
            sessionsExpired += sessions.stream().filter(r -> RouteBatches.result(r) == 1L).count();
            metrics.deadNodeRoutes.increment(count);
            at = chunk.next();
            return null;
        });
    }
}
