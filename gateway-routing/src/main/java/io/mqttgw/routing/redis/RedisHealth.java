package io.mqttgw.routing.redis;

import io.mqttgw.core.retry.FullJitterBackoff;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node knows of Redis answering: whether it answered once (connected), since when it has been failing and
 * with which error, and when the jobs between flushes ({@link FlusherIdleJobs}) may talk to it again after one of
 * theirs failed (full-jitter backoff; a failed pipeline has its shard's own). Redis coming back after failing restarts
 * what depended on the old data set: the dead-node observations and the resync.
 *
 * <p>Written on the flusher thread ({@code redis-route-flusher}); {@link #markConnected} also on the heartbeat
 * thread. The connected flag, failing-since and last error are read on any thread (health, lookups).
 */
final class RedisHealth {
    private static final Logger LOG = LoggerFactory.getLogger(RedisHealth.class);
    static final long NONE = Long.MIN_VALUE;

    private final FullJitterBackoff backoff;
    private final RouteTableMetrics metrics;
    private final NodeLiveness liveness;
    private final RouteResync resync;
    /** Operations waiting for Redis, for the failure log. */
    private final IntSupplier waiting;

    private volatile Runnable onHealthy = () -> { };
    /** When Redis started failing (System.nanoTime), 0 while it answers. */
    private volatile long failingSinceNanos;
    private volatile String lastError = "";
    /** Redis answered once: the client is connected, and calls from other threads no longer wait for it. */
    private volatile boolean connected;
    private int attempt;
    private long retryAtNanos = NONE;

    RedisHealth(FullJitterBackoff backoff, RouteTableMetrics metrics, NodeLiveness liveness, RouteResync resync,
                IntSupplier waiting) {
        this.backoff = backoff;
        this.metrics = metrics;
        this.liveness = liveness;
        this.resync = resync;
        this.waiting = waiting;
    }

    /** What runs when Redis answers: lookups may go ahead, the takeover channel subscribe. */
    void onHealthy(Runnable onHealthy) {
        this.onHealthy = onHealthy;
    }

    /** Redis answered (the heartbeat thread, or the flusher). */
    void markConnected() {
        if (!connected) {
            connected = true;
        }
        onHealthy.run();
    }

    boolean connected() {
        return connected;
    }

    long failingSinceNanos() {
        return failingSinceNanos;
    }

    String lastError() {
        return lastError;
    }

    /** The jobs between flushes may talk to Redis now: no backoff, or its delay has passed. */
    boolean mayTalk(long now) {
        return retryAtNanos == NONE || now - retryAtNanos >= 0;
    }

    /** When the backoff after a failure ends (System.nanoTime), {@link #NONE} when there is none. */
    long retryAtNanos() {
        return retryAtNanos;
    }

    /**
     * Redis answered the flusher (a pipeline, or a job's exchange): the backoff ends, and a recovery restarts what the
     * old data set fed.
     */
    void succeeded() {
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
            resync.restart();
            onHealthy.run();
        }
        attempt = 0;
        retryAtNanos = NONE;
    }

    /** A job between flushes failed: those jobs talk to Redis again after a backoff (flushes go on meanwhile). */
    void failed(String what, Exception e) {
        attempt++;
        retryAtNanos = System.nanoTime() + backoff.delayNanos(attempt);
        noteFailure(what, e);
    }

    /** Counts, logs and reports a failure; the caller decides when to try again. */
    void noteFailure(String what, Exception e) {
        metrics.batchFailures.increment();
        liveness.restart();
        long now = System.nanoTime();
        lastError = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (failingSinceNanos == 0) {
            failingSinceNanos = now;
            LOG.warn("Redis route table: {} failed ({}); retrying with backoff, {} operations waiting", what,
                    lastError, waiting.getAsInt());
        } else {
            LOG.debug("Redis route table: {} failed again: {}", what, lastError);
        }
    }

    /** The flusher thread died: health reports it as failing from now on. */
    void flusherStopped(Throwable t) {
        failingSinceNanos = System.nanoTime();
        lastError = "flusher stopped: " + t;
    }
}
