package io.mqttgw.routing.redis;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The route table's meters, created once. {@code mqttgw.routes.redis.ops{type,result}} counts every operation by
 * what became of it; fenced deletes skipped are {@code type="delete",result="fenced"}. Thread-safe.
 */
public final class RouteTableMetrics {
    final Counter putWritten;
    final Counter putTakeover;
    final Counter putStale;
    final Counter putCoalesced;
    final Counter putDropped;
    final Counter putAbandoned;
    final Counter putProofConflict;
    final Counter deleteDeleted;
    final Counter deleteFenced;
    final Counter deleteCoalesced;
    final Counter deleteDropped;
    final Counter deleteAbandoned;
    final DistributionSummary batchSize;
    final Timer flushLatency;
    final Counter batchFailures;
    final Counter takeoversReceived;
    final Counter resyncs;
    final Counter resyncWritten;
    final Counter resyncDeleted;
    final Counter resyncSuperseded;
    final Counter resyncProofConflict;
    final Counter deadNodes;
    final Counter heartbeatsOk;
    final Counter heartbeatsFailed;
    final Counter deadNodeRoutes;

    public RouteTableMetrics(MeterRegistry meters, Supplier<Number> queued, Supplier<Number> pending) {
        putWritten = op(meters, "put", "written");
        putTakeover = op(meters, "put", "takeover");
        putStale = op(meters, "put", "stale");
        putCoalesced = op(meters, "put", "coalesced");
        putDropped = op(meters, "put", "dropped");
        putAbandoned = op(meters, "put", "abandoned");
        putProofConflict = op(meters, "put", "proof_conflict");
        deleteDeleted = op(meters, "delete", "deleted");
        deleteFenced = op(meters, "delete", "fenced");
        deleteCoalesced = op(meters, "delete", "coalesced");
        deleteDropped = op(meters, "delete", "dropped");
        deleteAbandoned = op(meters, "delete", "abandoned");
        Gauge.builder("mqttgw.routes.redis.queue.depth", queued)
                .description("Route operations queued by event loops, not yet taken by the flusher")
                .register(meters);
        Gauge.builder("mqttgw.routes.redis.pending.operations", pending)
                .description("Route operations taken by the flusher (coalesced) and not yet stored").register(meters);
        batchSize = DistributionSummary.builder("mqttgw.routes.redis.batch.size")
                .description("Devices per pipeline sent to Redis (each costs two commands per operation)")
                .register(meters);
        flushLatency = Timer.builder("mqttgw.routes.redis.flush.latency")
                .description("Time to send one pipeline and read its answers").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(30))
                .register(meters);
        batchFailures = Counter.builder("mqttgw.routes.redis.batch.failures")
                .description("Pipelines or commands that failed and are retried with backoff").register(meters);
        takeoversReceived = Counter.builder("mqttgw.routes.redis.takeovers.received")
                .description("Messages from other nodes that took over a device of this node").register(meters);
        resyncs = Counter.builder("mqttgw.routes.redis.resyncs")
                .description("Resynchronisations of this node's routes (startup, recovery, overflow)")
                .register(meters);
        resyncWritten = resync(meters, "written");
        resyncDeleted = resync(meters, "deleted");
        resyncSuperseded = resync(meters, "superseded");
        resyncProofConflict = resync(meters, "proof_conflict");
        heartbeatsOk = heartbeat(meters, "ok");
        heartbeatsFailed = heartbeat(meters, "failed");
        deadNodes = Counter.builder("mqttgw.routes.redis.dead.nodes")
                .description("Dead nodes whose routes this node removed").register(meters);
        deadNodeRoutes = Counter.builder("mqttgw.routes.redis.dead.node.routes")
                .description("Routes of dead nodes this node removed").register(meters);
    }

    private static Counter op(MeterRegistry meters, String type, String result) {
        return Counter.builder("mqttgw.routes.redis.ops").tag("type", type).tag("result", result)
                .description("Route operations by type and what became of them").register(meters);
    }

    private static Counter heartbeat(MeterRegistry meters, String result) {
        return Counter.builder("mqttgw.routes.redis.heartbeats").tag("result", result)
                .description("Refreshes of this node's heartbeat key, on their own thread, by result").register(meters);
    }

    private static Counter resync(MeterRegistry meters, String result) {
        return Counter.builder("mqttgw.routes.redis.resync.routes").tag("result", result)
                .description("Routes a resync wrote, deleted (stale) or found superseded by another node")
                .register(meters);
    }
}
