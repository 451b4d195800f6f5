package io.mqttgw.routing.redis;

import io.mqttgw.routing.route.RouteCoalescer;
import io.mqttgw.routing.route.RouteOp;
import io.mqttgw.routing.route.RouteQueue;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Moves route operations from the queue to Redis: takes what the event loops queued into the coalescer (one pending
 * operation per device, a put cancelled by its delete counted), sends it as a pipeline per shard that has none in
 * flight ({@link ShardPipelines}), and reports each shard's answer: stored devices to {@link RouteResync}, success
 * or failure to {@link RedisHealth}. It never waits for an answer, so a shard that does not answer holds up no other.
 *
 * <p>Confined to the {@code redis-route-flusher} thread, which decides when to flush ({@link RouteFlusher}).
 */
final class CoalescingSender {
    private final RouteQueue queue;
    private final RouteTableMetrics metrics;
    private final RouteCoalescer coalescer = new RouteCoalescer();
    private final ShardPipelines pipelines;
    private final ShardPipelines.Listener answers;
    private final RedisHealth health;

    CoalescingSender(RouteQueue queue, RouteTableMetrics metrics, ShardPipelines pipelines, RouteResync resync,
                     RedisHealth health) {
        this.queue = queue;
        this.metrics = metrics;
        this.pipelines = pipelines;
        this.health = health;
        this.answers = new ShardPipelines.Listener() {
            @Override
            public void stored(List<Map.Entry<String, RouteCoalescer.Pending>> devices) {
                resync.stored(devices);
                answered();
            }

            @Override
            public void failed(String what, Exception e) {
                health.noteFailure(what, e);
            }
        };
    }

    /** Redis answered a pipeline, or a job between flushes ({@link FlusherIdleJobs}). */
    void answered() {
        // while a shard still fails, Redis is not back as a whole: no recovery resync yet
        if (!pipelines.anyFailing()) {
            health.succeeded();
        } else if (!health.connected()) {
            health.markConnected();
        }
    }

    /** Takes the answers that have come in since the last call. */
    void pollAnswers() {
        pipelines.poll(answers);
    }

    /** Coalesces what is queued (up to the queue's capacity in devices) and sends it to the shards that are free. */
    void flush(boolean connected) {
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
        pipelines.sendNew(coalescer, connected, answers);
    }

    /** Nothing waits to be sent (queued operations not counted). */
    boolean nothingPending() {
        return coalescer.isEmpty();
    }

    /** No pipeline is in flight or waits for its retry. */
    boolean nothingInFlight() {
        return pipelines.isEmpty();
    }

    /** Operations taken from the queue and not yet sent. */
    int pendingOperations() {
        return coalescer.operations();
    }

    /** Operations taken from the queue and not yet stored: pending and in flight. */
    int operations() {
        return coalescer.operations() + pipelines.operations();
    }

    /** When a failed pipeline is next retried, or {@link RedisHealth#NONE}. */
    long nextRetryNanos() {
        return pipelines.nextRetryNanos();
    }

    /** Fails every operation not stored yet with {@code error}, handing each to {@code each}. */
    void failAll(Throwable error, Consumer<RouteOp> each) {
        coalescer.failAll(error, each);
        pipelines.failAll(error, each);
    }
}
