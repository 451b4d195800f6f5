package io.mqttgw.routing.redis;

import io.mqttgw.core.retry.FullJitterBackoff;
import io.mqttgw.core.spi.RouteConflictException;
import io.mqttgw.routing.route.RouteCoalescer;
import io.mqttgw.routing.route.RouteOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;

/**
 * The route pipelines in flight, at most one per shard ({@link ClusterShards}), each waited for without blocking the
 * others: in Redis Cluster a master that fails over holds up the writes of its own slots only, while the other
 * masters' pipelines go on. A device's operations are taken out of the coalescer when sent and stay with their
 * pipeline until Redis took them; the device's newer operations wait in the coalescer meanwhile, so one device's
 * operations still reach Redis in order. A failed pipeline is sent again, as it was, after its own full-jitter
 * backoff. A pipeline touches its own shard only: each route's index entry is in the route's slot
 * ({@link RouteKeys#nodeSlotRoutes}). Outside Cluster there is one shard: one pipeline at a time, as before. Flusher
 * thread only.
 */
final class ShardPipelines {
    private static final long NONE = Long.MIN_VALUE;

    /** What the flusher learns from the pipelines. */
    interface Listener {
        /** A pipeline was stored; its devices are completed already. */
        void stored(List<Map.Entry<String, RouteCoalescer.Pending>> devices);

        /** A pipeline failed (it is kept and sent again after its backoff). */
        void failed(String what, Exception e);
    }

    /** One shard's pipeline: in flight ({@code answer} set) or failed and waiting for {@code retryAtNanos}. */
    private static final class Shipment {
        final String shard;
        final List<Map.Entry<String, RouteCoalescer.Pending>> devices;
        CompletableFuture<?> answer;
        List<RFuture<Long>> deletes;
        List<RFuture<Long>> puts;
        /** The answer is the scripts' loading; the pipeline follows it. */
        boolean loading;
        long sentNanos;
        int attempt;
        long retryAtNanos = NONE;

        Shipment(String shard, List<Map.Entry<String, RouteCoalescer.Pending>> devices) {
            this.shard = shard;
            this.devices = devices;
        }
    }

    private final RouteBatches batches;
    private final ClusterShards shards;
    private final RouteKeys keys;
    private final RouteTableMetrics metrics;
    private final FullJitterBackoff backoff;
    private final int batchSize;
    private final long answerNanos;
    private final Runnable wake;
    private final Map<String, Shipment> byShard = new LinkedHashMap<>();
    /**
     * Client ids whose operations are in a shipment, or whose routes a resync is writing ({@link #hold}): their newer
     * operations wait in the coalescer until Redis has answered.
     */
    private final Set<String> held = new HashSet<>();
    /** Shards whose last pipeline was stored: their nodes have the scripts. */
    private final Set<String> scriptsOn = new HashSet<>();
    private int heldOperations;

    ShardPipelines(RouteBatches batches, ClusterShards shards, RouteKeys keys,
                   RouteTableMetrics metrics, FullJitterBackoff backoff, int batchSize, long timeoutMillis,
                   Runnable wake) {
        this.batches = batches;
        this.shards = shards;
        this.keys = keys;
        this.metrics = metrics;
        this.backoff = backoff;
        this.batchSize = batchSize;
        // a little longer than the pipeline's own response timeout, as RouteBatches.await waits
        this.answerNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis * 2 + 1000);
        this.wake = wake;
    }

    boolean isEmpty() {
        return byShard.isEmpty();
    }

    /** Whether a shard's pipeline failed and has not been stored since. */
    boolean anyFailing() {
        for (Shipment s : byShard.values()) {
            if (s.attempt > 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether a device's operations are in a shipment, or its route in a resync's pipeline. */
    boolean holds(String clientId) {
        return held.contains(clientId);
    }

    /**
     * A resync writes these devices' routes (the live sessions as they were when it started) in a pipeline of its own:
     * until it is answered, their newer operations stay in the coalescer, so they reach Redis after it, in order.
     */
    void hold(List<String> clientIds) {
        held.addAll(clientIds);
    }

    /** The resync's pipeline for these devices was answered, failed, or given up: their operations may go. */
    void release(List<String> clientIds) {
        clientIds.forEach(held::remove);
    }

    /** Operations in pipelines, not yet stored. */
    int operations() {
        return heldOperations;
    }

    /** The earliest retry of a failed pipeline, or {@code NONE}. */
    long nextRetryNanos() {
        long next = NONE;
        for (Shipment s : byShard.values()) {
            if (s.answer == null && s.retryAtNanos != NONE && (next == NONE || s.retryAtNanos - next < 0)) {
                next = s.retryAtNanos;
            }
        }
        return next;
    }

    /** Handles the answers that came, sends failed pipelines whose backoff ran out. */
    void poll(Listener listener) {
        long now = System.nanoTime();
        for (Iterator<Shipment> it = byShard.values().iterator(); it.hasNext(); ) {
            Shipment s = it.next();
            if (s.answer != null && !s.answer.isDone() && now - s.sentNanos - answerNanos >= 0) {
                // given up, not cancelled: cancelling a pipeline Redisson is still writing would leak its buffers;
                // a late answer only wakes this thread, and the scripts are idempotent if it was stored after all
                s.answer = CompletableFuture.failedFuture(new TimeoutException("no answer within the timeout"));
            }
            if (s.answer != null && s.answer.isDone()) {
                Exception error = RedisExchange.errorOf(s.answer);
                s.answer = null;
                if (error == null && s.loading) {
                    scriptsOn.add(s.shard);
                    send(s, listener);
                } else if (error == null) {
                    scriptsOn.add(s.shard);
                    it.remove();
                    stored(s);
                    listener.stored(s.devices);
                } else {
                    batches.failed();
                    shards.markStale();
                    scriptsOn.remove(s.shard);
                    s.attempt++;
                    s.retryAtNanos = now + backoff.delayNanos(s.attempt);
                    listener.failed("pipeline of " + s.devices.size() + " devices", error);
                }
            }
        }
        for (Shipment s : byShard.values()) {
            if (s.answer == null && s.retryAtNanos != NONE && now - s.retryAtNanos >= 0) {
                send(s, listener);
            }
        }
    }

    /**
     * Takes devices from the front of the coalescer, up to a pipeline per shard that has none in flight, and sends
     * them. Devices held by a pipeline, or of a shard whose pipeline is busy, stay where they are.
     */
    void sendNew(RouteCoalescer coalescer, boolean connected, Listener listener) {
        if (coalescer.isEmpty()) {
            return;
        }
        shards.refreshIfStale(connected);
        if (!shards.mapped() && !byShard.isEmpty()) {
            // one shard and its pipeline busy: nothing can go now
            return;
        }
        Map<String, List<Map.Entry<String, RouteCoalescer.Pending>>> groups = new HashMap<>();
        // bounded look-ahead: a busy shard's devices are skipped, not scanned without end
        for (Map.Entry<String, RouteCoalescer.Pending> e : coalescer.peek(batchSize * 8)) {
            if (held.contains(e.getKey())) {
                continue;
            }
            String shard = shards.mapped() ? shards.shardOf(keys.route(e.getKey())) : "";
            if (byShard.containsKey(shard)) {
                continue;
            }
            List<Map.Entry<String, RouteCoalescer.Pending>> g = groups.computeIfAbsent(shard,
                    k -> new ArrayList<>());
            if (g.size() < batchSize) {
                g.add(e);
            }
        }
        for (Map.Entry<String, List<Map.Entry<String, RouteCoalescer.Pending>>> g : groups.entrySet()) {
            coalescer.remove(g.getValue());
            Shipment s = new Shipment(g.getKey(), g.getValue());
            for (Map.Entry<String, RouteCoalescer.Pending> e : s.devices) {
                held.add(e.getKey());
                heldOperations += (e.getValue().delete() == null ? 0 : 1) + (e.getValue().put() == null ? 0 : 1);
            }
            byShard.put(s.shard, s);
            send(s, listener);
        }
    }

    private void send(Shipment s, Listener listener) {
        s.retryAtNanos = NONE;
        s.sentNanos = System.nanoTime();
        try {
            // the first pipeline of a shard, and every retry (a promoted replica or a restarted Redis lacks them),
            // loads the scripts on the nodes it talks to first; asynchronously, so a dead shard holds up no other.
            // The pipeline is built (here, on the flusher) only once they are loaded: a pipeline built and never
            // sent would keep its encoded commands.
            s.loading = !scriptsOn.contains(s.shard);
            CompletableFuture<?> answer = s.loading
                    ? batches.loadScriptsAsync(List.of(keys.route(s.devices.get(0).getKey())))
                    : execute(s);
            s.answer = answer;
            answer.whenComplete((r, e) -> wake.run());
        } catch (Exception e) {
            // the pipeline could not be built: the same backoff as a failed one
            batches.failed();
            scriptsOn.remove(s.shard);
            shards.markStale();
            s.attempt++;
            s.retryAtNanos = System.nanoTime() + backoff.delayNanos(s.attempt);
            listener.failed("pipeline of " + s.devices.size() + " devices", e);
        }
    }

    /** Builds the shipment's pipeline and sends it. */
    private CompletableFuture<?> execute(Shipment s) {
        RBatch batch = batches.create();
        List<RFuture<Long>> deletes = new ArrayList<>(s.devices.size());
        List<RFuture<Long>> puts = new ArrayList<>(s.devices.size());
        for (Map.Entry<String, RouteCoalescer.Pending> e : s.devices) {
            RouteCoalescer.Pending p = e.getValue();
            deletes.add(p.delete() == null ? null : batches.delete(batch, e.getKey(), p.delete().epoch()));
            puts.add(p.put() == null ? null : batches.put(batch, p.put().route(), false));
        }
        s.deletes = deletes;
        s.puts = puts;
        return batch.executeAsync().toCompletableFuture();
    }

    private void stored(Shipment s) {
        metrics.flushLatency.record(System.nanoTime() - s.sentNanos, TimeUnit.NANOSECONDS);
        metrics.batchSize.record(s.devices.size());
        for (int i = 0; i < s.devices.size(); i++) {
            Map.Entry<String, RouteCoalescer.Pending> e = s.devices.get(i);
            held.remove(e.getKey());
            heldOperations -= (e.getValue().delete() == null ? 0 : 1) + (e.getValue().put() == null ? 0 : 1);
            if (s.deletes.get(i) != null) {
                long r = RouteBatches.result(s.deletes.get(i));
                (r == 1L ? metrics.deleteDeleted : metrics.deleteFenced).increment();
            }
            if (s.puts.get(i) != null) {
                long r = RouteBatches.result(s.puts.get(i));
                if (r == RouteScripts.PUT_PROOF_CONFLICT) {
                    metrics.putProofConflict.increment();
                    // the connection that wrote it is closed by whoever waits on it (the node's CONNECT phase)
                    e.getValue().put().completeExceptionally(new RouteConflictException(e.getKey()));
                } else {
                    (r == RouteScripts.PUT_TOOK_OVER ? metrics.putTakeover
                            : r == RouteScripts.PUT_STALE ? metrics.putStale : metrics.putWritten).increment();
                }
            }
            e.getValue().complete();
        }
    }

    /** Fails and forgets every pipeline's operations (the store gave up at shutdown). */
    void failAll(Throwable error, Consumer<RouteOp> each) {
        for (Shipment s : byShard.values()) {
            for (Map.Entry<String, RouteCoalescer.Pending> e : s.devices) {
                RouteCoalescer.Pending p = e.getValue();
                if (p.delete() != null) {
                    each.accept(p.delete());
                }
                if (p.put() != null) {
                    each.accept(p.put());
                }
                p.fail(error);
            }
        }
        byShard.clear();
        held.clear();
        heldOperations = 0;
    }
}
