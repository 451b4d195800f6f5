package io.mqttgw.routing.route;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded multi-producer queue between the event loops and the flusher. {@link #offer} is lock-free and O(1):
 * it never waits, and refuses when {@code capacity} operations are waiting. Single consumer.
 */
public final class RouteQueue {
    private final ConcurrentLinkedQueue<RouteOp> ops = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    public RouteQueue(int capacity) {
        this.capacity = capacity;
    }

    /** Adds {@code op}; returns the queue's new size, or -1 when it is full and {@code op} was not added. */
    public int offer(RouteOp op) {
        int n = size.incrementAndGet();
        if (n > capacity) {
            size.decrementAndGet();
            return -1;
        }
        ops.offer(op);
        return n;
    }

    /** The oldest operation, or null. Flusher only. */
    public RouteOp poll() {
        RouteOp op = ops.poll();
        if (op != null) {
            size.decrementAndGet();
        }
        return op;
    }

    public int size() {
        return Math.max(0, size.get());
    }

    public int capacity() {
        return capacity;
    }
}
