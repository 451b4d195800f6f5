package io.mqttgw.auth.cache;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread ({@code auth-cache}) that keeps the auth module's Caffeine caches: eviction and dropping expired
 * entries. Chosen over running the upkeep on the caller (an event loop would pay for other devices' evictions)
 * and over the common fork-join pool (shared with unrelated work, one thread on a small node). Caffeine schedules
 * one upkeep task per cache at a time, so the queue, bounded by the number of caches, never fills.
 */
public final class CacheMaintenance {
    /** Room for the pending upkeep of each cache of the module (answers, identity records) and spare. */
    private static final int QUEUE = 8;

    private CacheMaintenance() {
    }

    /** A new single daemon thread; the caller shuts it down with its caches. */
    public static ExecutorService executor() {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE),
                new DefaultThreadFactory("auth-cache", true));
    }
}
