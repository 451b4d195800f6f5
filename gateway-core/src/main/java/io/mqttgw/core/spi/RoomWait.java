package io.mqttgw.core.spi;

/**
 * One waiter for room in an {@link UplinkSink}: a connection whose message the sink refused for capacity. The caller
 * makes one per connection (at most one registration each) and keeps it for the connection's life; the links and the
 * bookkeeping here belong to the sink's {@link RoomWaiters}, which is why this is a class and not an interface.
 */
public abstract class RoomWait {
    RoomWait prev;
    RoomWait next;
    /** Queued in a {@link RoomWaiters}. */
    boolean queued;
    /** Woken and not yet back (sent again or queued again): its cost counts as promised room. */
    boolean woken;
    /** Bytes the refused message needs, as the sink charges them. */
    long cost;

    /**
     * The sink has room: called once per registration, on whichever thread freed it (the sink's own I/O thread, or
     * an event loop). Hands over to the waiter's own thread (its channel's event loop) and returns; never blocks and
     * never calls back into the sink on the calling thread.
     */
    protected abstract void room();
}
