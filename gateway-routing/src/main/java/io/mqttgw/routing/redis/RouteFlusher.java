package io.mqttgw.routing.redis;

import io.mqttgw.core.retry.FullJitterBackoff;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.routing.route.RouteQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of the {@code redis-route-flusher} thread, the one background thread between the queue and Redis: it
 * decides when to flush and when to sleep. A flush is due when a batch is full ({@code batch-size}) or its oldest
 * operation has waited {@code flush-interval}; {@link CoalescingSender} then coalesces it per device and sends it by
 * shard (one pipeline in flight per shard, so a Redis Cluster master failing over holds up only its own slots); a
 * failed pipeline waits out its shard's own backoff, and while Redis is down the queue keeps taking operations up to
 * its bound. Between flushes (nothing pending or in flight) it starts a chunk of the other jobs ({@link
 * FlusherIdleJobs}), each a class of its own that works in chunks of {@code batch-size}: {@link RouteResync} when this
 * node's routes may have drifted, {@link DeadNodeCleanup} for the routes of dead nodes. It does not wait for their
 * answers either: flushes go on meanwhile, and a failed chunk waits out the backoff {@link RedisHealth} sets. At
 * close, {@link ShutdownCleanup}, after the job in flight was answered. The node's heartbeat is not its job:
 * {@link NodeHeartbeat} refreshes it on its own thread, so a backlog here cannot starve it.
 */
final class RouteFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RouteFlusher.class);
    private static final long NONE = RedisHealth.NONE;
    /** The longest park with nothing due: a wake-up of its own every so often costs nothing. */
    private static final long MAX_PARK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisRouteSettings settings;
    private final RouteQueue queue;
    private final CoalescingSender sender;
    private final long intervalNanos;
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean ended;

    private volatile RouteEvents events;
    private volatile Thread thread;
    private volatile boolean closing;
    private volatile long closeDeadlineNanos;
    private volatile int pendingOperations;
    private long batchDeadlineNanos = NONE;
    private final NodeHeartbeat heartbeat;
    private final NodeLiveness liveness;
    private final RouteResync resync;
    private final DeadNodeCleanup deadNodes;
    private final ShutdownCleanup shutdown;
    private final RedisHealth health;
    private final FlusherIdleJobs idleJobs;

    RouteFlusher(RedisRouteSettings settings, String nodeId, String runId, RedissonClient client, RouteQueue queue,
                 RouteTableMetrics metrics) {
        this.settings = settings;
        RouteKeys keys = new RouteKeys(settings.keyPrefix());
        this.queue = queue;
        RouteBatches batches = new RouteBatches(client, keys, nodeId, settings.timeout());
        FullJitterBackoff backoff = new FullJitterBackoff(settings.retryMinDelay(), settings.retryMaxDelay());
        ClusterShards shards = new ClusterShards(client, settings.timeout().toMillis());
        ShardPipelines pipelines = new ShardPipelines(batches, shards, keys, metrics, backoff, settings.batchSize(),
                settings.timeout().toMillis(), this::wake);
        this.intervalNanos = settings.flushInterval().toNanos();
        this.liveness = new NodeLiveness(settings.nodeTtl().toNanos());
        this.heartbeat = new NodeHeartbeat(settings, nodeId, runId, client, metrics, new NodeHeartbeat.Listener() {
            @Override
            public void answered() {
                health.markConnected();
            }

            @Override
            public void keyWasLost() {
                // Redis lost data: the other nodes' keys may be gone too while those nodes are alive
                liveness.restart();
                resync.request();
                wake();
            }

            @Override
            public void failed() {
                liveness.restart();
            }
        });
        this.resync = new RouteResync(settings, nodeId, keys, client, batches, metrics, pipelines, shards);
        this.deadNodes = new DeadNodeCleanup(settings, nodeId, runId, keys, client, batches, metrics, liveness);
        this.shutdown = new ShutdownCleanup(settings, nodeId, keys, client, batches, metrics, heartbeat);
        this.health = new RedisHealth(backoff, metrics, liveness, resync, this::unsent);
        this.sender = new CoalescingSender(queue, metrics, pipelines, resync, health);
        this.idleJobs = new FlusherIdleJobs(resync, deadNodes, health, batches, settings.timeout().toMillis(),
                sender::answered, this::wake);
    }

    void start(RouteEvents events, Runnable onHealthy) {
        this.events = events;
        health.onHealthy(onHealthy);
        Thread t = new Thread(this, "redis-route-flusher");
        t.setDaemon(true);
        thread = t;
        t.start();
        heartbeat.start();
    }

    /** See {@link DeadNodeCleanup#expireSessions}; before {@link #start}. */
    void expireDeadNodeSessions(io.mqttgw.routing.session.SessionKeys keys, java.time.Duration expiry) {
        deadNodes.expireSessions(keys, expiry);
    }

    boolean started() {
        return thread != null;
    }

    /** Event loops: the queue just got its first operation or a full batch. */
    void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Event loops: an operation was dropped because the queue was full. */
    void overflowed() {
        resync.overflowed();
    }

    void close(long deadlineNanos) {
        closeDeadlineNanos = deadlineNanos;
        closing = true;
        wake();
    }

    long failingSinceNanos() {
        return health.failingSinceNanos();
    }

    String lastError() {
        return health.lastError();
    }

    boolean overflowPending() {
        return resync.overflowPending();
    }

    long droppedSinceResync() {
        return resync.droppedSinceResync();
    }

    boolean connected() {
        return health.connected();
    }

    int pendingOperations() {
        return pendingOperations;
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (Throwable t) {
            LOG.error("route flusher stopped by an unexpected error; routes are no longer written", t);
            health.flusherStopped(t);
        } finally {
            heartbeat.stop(0);
            idleJobs.abandon();
            sender.failAll(ShutdownCleanup.CLOSED, shutdown::abandon);
            ended = true;
            long late = afterEnd();
            if (shutdown.abandoned() > 0) {
                LOG.warn("route store closed with {} route operations not stored in Redis", shutdown.abandoned());
            } else if (late > 0) {
                LOG.debug("{} route deletes came during the shutdown clean-up, which had deleted their routes", late);
            }
            pendingOperations = 0;
            closed.complete(null);
        }
    }

    /**
     * Settles what was queued after this thread's last flush ({@link ShutdownCleanup#settleQueued}). Called by this
     * thread as it ends and, after that, by whoever queues; answers how many deletes were done so.
     */
    long afterEnd() {
        return shutdown.settleQueued(queue);
    }

    /** This thread has ended: nothing queued from now on is flushed ({@link #afterEnd}). */
    boolean ended() {
        return ended;
    }

    private void loop() {
        while (true) {
            long now = System.nanoTime();
            boolean stopping = closing;
            if (batchDeadlineNanos == NONE && (queue.size() > 0 || !sender.nothingPending())) {
                batchDeadlineNanos = now + intervalNanos;
            }
            sender.pollAnswers();
            idleJobs.poll(now);
            // a failed shard waits out its own backoff in ShardPipelines; the others' devices go on
            boolean due = batchDeadlineNanos != NONE
                    && (stopping || now - batchDeadlineNanos >= 0 || queue.size() >= settings.batchSize());
            if (due) {
                sender.flush(health.connected());
                now = System.nanoTime();
                batchDeadlineNanos = queue.size() == 0 && sender.nothingPending() ? NONE : now + intervalNanos;
            }
            pendingOperations = sender.operations();
            boolean mayTalk = health.mayTalk(now);
            if (mayTalk && !stopping && idle()) {
                idleJobs.runOne(now, events);
            }
            if (stopping) {
                if (queue.size() == 0 && idle() && mayTalk) {
                    shutdown.deleteRoutes(closeDeadlineNanos);
                    return;
                }
                if (now - closeDeadlineNanos >= 0) {
                    LOG.warn("route store gives up at shutdown: Redis did not take {} operations ({})",
                            sender.operations() + queue.size(), health.lastError());
                    return;
                }
            }
            park(now);
        }
    }

    /** No flush pending or in flight, and no exchange of a job between flushes: a chunk of one may start. */
    private boolean idle() {
        return sender.nothingPending() && sender.nothingInFlight() && !idleJobs.inFlight();
    }

    private void park(long now) {
        if (busy(now)) {
            return;
        }
        long until = batchDeadlineNanos != NONE ? batchDeadlineNanos : now + MAX_PARK_NANOS;
        if (idle()) {
            // the jobs between flushes: the end of a backoff, the dead-node check when due. Only while nothing is
            // in flight (an answer wakes this thread), and a backoff that is over counts no more: a time already
            // past would spin this thread until Redis answers something
            long retry = health.retryAtNanos();
            until = earliest(until, retry != NONE && retry - now > 0 ? retry : idleJobs.nextCheckNanos());
        }
        if (idleJobs.inFlight()) {
            until = earliest(until, idleJobs.giveUpNanos());
        }
        if (!sender.nothingInFlight()) {
            // an answer wakes this thread; a pipeline's own timeout and retry are checked at least this often
            long retry = sender.nextRetryNanos();
            until = earliest(until, retry != NONE ? retry : now + TimeUnit.MILLISECONDS.toNanos(100));
            until = earliest(until, now + TimeUnit.MILLISECONDS.toNanos(100));
        }
        if (closing) {
            until = earliest(until, now + TimeUnit.MILLISECONDS.toNanos(50));
        }
        long wait = until - now;
        if (wait > 0) {
            LockSupport.parkNanos(this, wait);
        }
    }

    /** Work that can go on at once: a resync or cleanup chunk, no backoff, nothing pending or in flight. */
    private boolean busy(long now) {
        return health.mayTalk(now) && idle() && !closing && idleJobs.hasWork();
    }

    /** Operations not yet handed to a pipeline: queued or coalesced. */
    private int unsent() {
        return sender.pendingOperations() + queue.size();
    }

    private static long earliest(long a, long b) {
        return a - b <= 0 ? a : b;
    }
}
