package io.mqttgw.auth.cache;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread ({@code auth-cache}) that keeps the auth module's Caffeine caches: eviction and dropping expired
 * entries. Chosen over running the upkeep on the caller (an event loop would pay for other devices' evictions)
 * and over the common fork-join pool (shared with unrelated work, one thread on a small node).
 * <p>
 * Hand-written rather than a {@code ThreadPoolExecutor} because Caffeine hands it work from the threads that write
 * the cache, which are event loops (the HTTP client's, when an answer arrives): a JDK executor's blocking queue
 * takes a lock on every hand-off, and the event-loop guard caught one waiting for it. Here a hand-off is a
 * lock-free queue offer and an unpark. Caffeine schedules one upkeep task per cache at a time, so {@link #LIMIT}
 * is never reached in practice; past it the task is refused and Caffeine does that upkeep on the caller.
 */
public final class CacheMaintenance implements Executor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CacheMaintenance.class);
    /** Room for the pending upkeep of each cache of the module (answers, identity records) and spare. */
    private static final int LIMIT = 8;

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final Thread thread;
    private volatile boolean closed;

    private CacheMaintenance() {
        thread = new Thread(this::run, "auth-cache");
        thread.setDaemon(true);
    }

    /** A new maintenance thread, started; the caller closes it with its caches. */
    public static CacheMaintenance start() {
        CacheMaintenance maintenance = new CacheMaintenance();
        maintenance.thread.start();
        return maintenance;
    }

    @Override
    public void execute(Runnable task) {
        if (closed || pending.incrementAndGet() > LIMIT) {
            pending.decrementAndGet();
            throw new RejectedExecutionException("auth cache upkeep: " + (closed ? "closed" : "queue full"));
        }
        tasks.offer(task);
        LockSupport.unpark(thread);
    }

    /** Tasks handed over and not started yet (tests). */
    int pending() {
        return pending.get();
    }

    private void run() {
        while (!closed) {
            Runnable task = tasks.poll();
            if (task == null) {
                LockSupport.park(this);
                continue;
            }
            pending.decrementAndGet();
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("auth cache upkeep failed", e);
            }
        }
    }

    /** Stops the thread; upkeep not started yet is dropped with the caches. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
