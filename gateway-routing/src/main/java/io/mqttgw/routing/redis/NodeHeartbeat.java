package io.mqttgw.routing.redis;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's heartbeat key (and its membership in the node set), refreshed every {@code heartbeat-interval} on its
 * own thread, {@code redis-route-heartbeat}, whatever the flusher is doing: a long flush backlog or a flusher backing
 * off after failures must not let the key expire, or other nodes would remove this node's live routes as a dead
 * node's. One Redis call in flight at a time, each bounded by {@code routes.redis.timeout}; nothing queues up.
 *
 * <p>The value is the run id and a sequence number that grows with every beat, so the other nodes see the heartbeat
 * advance (see {@link NodeLiveness}); a beat that finds the key missing writes it again at once.
 */
final class NodeHeartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(NodeHeartbeat.class);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final String runId;
    private final RouteKeys keys;
    private final RouteBatches batches;
    private final RouteTableMetrics metrics;
    private final Listener listener;
    private final ScheduledExecutorService thread;
    private long beats;
    private long sequence;
    private boolean failing;
    private long lastDuplicateWarningNanos;

    /** What the flusher hears from the heartbeat; called on the heartbeat thread. */
    interface Listener {
        /** Redis answered. */
        void answered();

        /** The key was gone (Redis lost data, or this node stalled past the ttl): this node's routes may be too. */
        void keyWasLost();

        /** A beat failed: Redis is unreachable or too slow. */
        void failed();
    }

    NodeHeartbeat(RedisRouteSettings settings, String nodeId, String runId, RedissonClient client,
                  RouteTableMetrics metrics, Listener listener) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.runId = runId;
        this.keys = new RouteKeys(settings.keyPrefix());
        // its own script loader: RouteBatches is confined to one thread
        this.batches = new RouteBatches(client, keys, nodeId, settings.timeout());
        this.metrics = metrics;
        this.listener = listener;
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "redis-route-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        thread.scheduleWithFixedDelay(this::beat, 0, settings.heartbeatInterval().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops refreshing (a clean shutdown then deletes the key); waits at most {@code millis} for a call under way. */
    void stop(long millis) {
        thread.shutdownNow();
        try {
            thread.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The run id of a heartbeat value; a gateway of an earlier version wrote the run id alone. */
    static String runOf(String value) {
        int space = value.lastIndexOf(' ');
        return space < 0 ? value : value.substring(0, space);
    }

    private void beat() {
        try {
            batches.loadScripts();
            String previous = batches.await(batches.heartbeat(runId + " " + ++sequence, settings.nodeTtl()));
            metrics.heartbeatsOk.increment();
            if (failing) {
                failing = false;
                LOG.info("heartbeat of node {} answered again", nodeId);
            }
            if (beats > 0 && previous == null) {
                LOG.warn("heartbeat key {} was gone (Redis lost data, or this node stalled past routes.redis.node-ttl);"
                        + " resynchronising this node's routes", keys.alive(nodeId));
                listener.keyWasLost();
            } else if (previous != null && !runOf(previous).equals(runId) && beats > 0) {
                long now = System.nanoTime();
                if (lastDuplicateWarningNanos == 0 || now - lastDuplicateWarningNanos > TimeUnit.MINUTES.toNanos(1)) {
                    lastDuplicateWarningNanos = now;
                    LOG.warn("another gateway process writes routes as node {} ({}): node.id must be unique",
                            nodeId, previous);
                }
            }
            beats++;
            listener.answered();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            metrics.heartbeatsFailed.increment();
            listener.failed();
            if (!failing) {
                failing = true;
                LOG.warn("heartbeat of node {} failed ({}); retried every {}", nodeId, e.toString(),
                        settings.heartbeatInterval());
            }
        }
    }
}
