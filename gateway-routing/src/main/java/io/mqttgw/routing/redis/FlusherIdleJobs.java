package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.RouteEvents;

/**
 * The jobs the route flusher's thread does between flushes, one chunk at a time so that a flush is never held up
 * long: the dead-node check when it is due, then a resync of this node's routes ({@link RouteResync}), then a
 * dead node's cleanup ({@link DeadNodeCleanup}). A chunk that fails is counted in {@link RedisHealth}, which sets the
 * backoff before the next try.
 *
 * <p>Threading: only the {@code redis-route-flusher} thread calls it. Not thread-safe.
 */
final class FlusherIdleJobs {
    private final RouteResync resync;
    private final DeadNodeCleanup deadNodes;
    private final RedisHealth health;

    FlusherIdleJobs(RouteResync resync, DeadNodeCleanup deadNodes, RedisHealth health) {
        this.resync = resync;
        this.deadNodes = deadNodes;
        this.health = health;
    }

    /** Does the next chunk of work, if any is due; with Redis answering and no flush pending. */
    void runOne(long now, RouteEvents events) {
        resync.takeRequest();
        if (now - deadNodes.nextCheckNanos() >= 0) {
            deadNodeCheck();
        } else if (resync.shouldStart()) {
            resync.start(events);
        } else if (resync.running()) {
            resyncStep();
        } else if (deadNodes.cleaning()) {
            cleanupStep();
        }
    }

    /** Whether a chunk can go on at once (a resync or a cleanup under way). */
    boolean hasWork() {
        return resync.hasWork() || deadNodes.cleaning();
    }

    /** When the next dead-node check is due. */
    long nextCheckNanos() {
        return deadNodes.nextCheckNanos();
    }

    private void deadNodeCheck() {
        try {
            deadNodes.check();
        } catch (Exception e) {
            health.failed("dead-node check", e);
        }
    }

    private void cleanupStep() {
        String node = deadNodes.node();
        try {
            deadNodes.step();
            health.succeeded();
        } catch (Exception e) {
            health.failed("dead-node cleanup of " + node, e);
        }
    }

    private void resyncStep() {
        try {
            resync.step();
            health.succeeded();
        } catch (Exception e) {
            health.failed("resync", e);
        }
    }
}
