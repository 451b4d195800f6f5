package io.mqttgw.auth.resilience;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * At most {@code maxInFlight} calls at once; up to {@code maxQueued} more wait in a queue (no thread waits: a
 * waiting call is a task) and start, in arrival order, as calls end. A call that finds the queue full is rejected at
 * once, and one that waited longer than {@code maxWaitNanos} (its device has had its answer by then) is expired
 * instead of started. Every started call must be followed by exactly one {@link #release()}. Thread-safe.
 */
public final class CallLimiter {
    private final int maxInFlight;
    private final int maxQueued;
    private final long maxWaitNanos;
    private final LongSupplier nanoClock;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger queued = new AtomicInteger();
    private final ConcurrentLinkedQueue<Waiting> queue = new ConcurrentLinkedQueue<>();

    public CallLimiter(int maxInFlight, int maxQueued, long maxWaitNanos, LongSupplier nanoClock) {
        this.maxInFlight = maxInFlight;
        this.maxQueued = maxQueued;
        this.maxWaitNanos = maxWaitNanos;
        this.nanoClock = nanoClock;
    }

    /** What to do with one call: start it, or give up on it (queue full, or waited too long). */
    public interface Call {
        void start();

        void rejected(boolean expired);
    }

    /** Starts {@code call} now if a slot is free, else queues it, else rejects it; runs it on the calling thread. */
    public void submit(Call call) {
        if (queue.isEmpty() && tryTakeSlot()) {
            call.start();
            return;
        }
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            call.rejected(false);
            return;
        }
        queue.add(new Waiting(call, nanoClock.getAsLong()));
        drain();
    }

    /** Ends a started call and starts waiting ones while slots are free. */
    public void release() {
        inFlight.decrementAndGet();
        drain();
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int queued() {
        return queued.get();
    }

    private boolean tryTakeSlot() {
        while (true) {
            int n = inFlight.get();
            if (n >= maxInFlight) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /**
     * Both sides change their counter before they look at the other's (submit queues, then looks for a slot;
     * release frees a slot, then looks at the queue), so a waiting call is never left behind with a slot free.
     */
    private void drain() {
        while (!queue.isEmpty() && tryTakeSlot()) {
            Waiting w = queue.poll();
            if (w == null) {
                inFlight.decrementAndGet();
                continue;
            }
            queued.decrementAndGet();
            if (nanoClock.getAsLong() - w.since > maxWaitNanos) {
                inFlight.decrementAndGet();
                w.call.rejected(true);
            } else {
                w.call.start();
            }
        }
    }

    private record Waiting(Call call, long since) {
    }
}
