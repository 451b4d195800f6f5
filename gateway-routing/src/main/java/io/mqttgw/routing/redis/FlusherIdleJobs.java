package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.RouteEvents;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The jobs the route flusher's thread does between flushes, one chunk at a time: the dead-node check when it is due,
 * then a resync of this node's routes ({@link RouteResync}), then a dead node's cleanup ({@link DeadNodeCleanup}). A
 * chunk starts only when no flush is pending or in flight, and talks to Redis in exchanges ({@link RedisExchange})
 * that the flusher does not wait for: flushes go on while one is in flight, so a master that hangs in the middle of a
 * resync or a cleanup holds up that job, not the node's writes to the other masters. One exchange at a time; one
 * that fails, or is not answered within twice the route timeout (given up, not cancelled, as {@link ShardPipelines}
 * does), is counted in {@link RedisHealth}, which sets the backoff before the next chunk.
 *
 * <p>Threading: only the {@code redis-route-flusher} thread calls it. Not thread-safe.
 */
final class FlusherIdleJobs {
    /** A job's chunk: its first exchange, or null when it needed none. */
    @FunctionalInterface
    interface Chunk {
        RedisExchange<?> begin() throws Exception;
    }

    private final RouteResync resync;
    private final DeadNodeCleanup deadNodes;
    private final RedisHealth health;
    private final RouteBatches batches;
    /** Redis answered an exchange: what an answered flush does too ({@link CoalescingSender#answered}). */
    private final Runnable answered;
    private final Runnable wake;
    private final long answerNanos;

    private RedisExchange<?> inFlight;
    private String job;
    private long sentNanos;

    FlusherIdleJobs(RouteResync resync, DeadNodeCleanup deadNodes, RedisHealth health, RouteBatches batches,
                    long timeoutMillis, Runnable answered, Runnable wake) {
        this.resync = resync;
        this.deadNodes = deadNodes;
        this.health = health;
        this.batches = batches;
        this.answered = answered;
        this.wake = wake;
        // as ShardPipelines and RouteBatches.await: a little longer than the commands' own response timeout
        this.answerNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis * 2 + 1000);
    }

    /** Starts the next chunk of work, if any is due; with no exchange in flight, no backoff and no flush pending. */
    void runOne(long now, RouteEvents events) {
        resync.takeRequest();
        if (now - deadNodes.nextCheckNanos() >= 0) {
            begin("dead-node check", deadNodes::check);
        } else if (resync.shouldStart()) {
            resync.start(events);
        } else if (resync.running()) {
            begin("resync", resync::step);
        } else if (deadNodes.cleaning()) {
            begin("dead-node cleanup of " + deadNodes.node(), deadNodes::step);
        }
    }

    /** Takes the answer to the exchange in flight, if it came (or gives up on it), and sends the next one. */
    void poll(long now) {
        RedisExchange<?> e = inFlight;
        if (e == null) {
            return;
        }
        boolean came = e.answer().isDone();
        if (!came && now - sentNanos - answerNanos < 0) {
            return;
        }
        inFlight = null;
        e.settle();
        Exception error = came ? RedisExchange.errorOf(e.answer())
                : new TimeoutException("no answer within the timeout");
        if (error != null) {
            failed(error);
            return;
        }
        answered.run();
        try {
            send(e.handle());
        } catch (Exception x) {
            failed(x);
        }
    }

    /** An exchange is in flight: no other chunk starts, and the store's clean-up at shutdown waits for it. */
    boolean inFlight() {
        return inFlight != null;
    }

    /** When the exchange in flight is given up if still unanswered (its answer wakes the flusher before that). */
    long giveUpNanos() {
        return sentNanos + answerNanos;
    }

    /** Whether a chunk can start at once (a resync or a cleanup under way, nothing in flight). */
    boolean hasWork() {
        return inFlight == null && (resync.hasWork() || deadNodes.cleaning());
    }

    /** When the next dead-node check is due. */
    long nextCheckNanos() {
        return deadNodes.nextCheckNanos();
    }

    /** The flusher stops: the exchange in flight, if any, is given up (its devices are let go). */
    void abandon() {
        RedisExchange<?> e = inFlight;
        inFlight = null;
        if (e != null) {
            e.settle();
        }
    }

    private void begin(String job, Chunk chunk) {
        this.job = job;
        try {
            send(chunk.begin());
        } catch (Exception e) {
            failed(e);
        }
    }

    private void send(RedisExchange<?> next) {
        if (next == null) {
            return;
        }
        inFlight = next;
        sentNanos = System.nanoTime();
        next.answer().whenComplete((r, e) -> wake.run());
    }

    private void failed(Exception e) {
        // a restarted or promoted master may lack the scripts
        batches.failed();
        health.failed(job, e);
    }
}
