package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/**
 * Where device PUBLISHes go. {@link #send} is called on an event loop (and, for a delayed will a shared store
 * handed over, on that store's thread): it must never block and must bound what it holds. The stage completes when
 * the message is durably accepted downstream; the gateway sends the QoS 1 PUBACK (or QoS 2 PUBREC) only then. A sink
 * that is full completes the stage exceptionally with {@link UplinkRejectedException} at once, marked
 * {@linkplain UplinkRejectedException#capacity() for capacity} when the sink can tell a waiter when it has room again
 * ({@link #waitForRoom}): the gateway then holds the message, stops reading that connection and sends it again when
 * told, instead of treating the refusal as a failure.
 */
public interface UplinkSink {
    CompletionStage<Void> send(UplinkMessage message);

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    /** How full the sink's bound is, 0 to 1 (its queue or bytes awaiting delivery); an overload signal. */
    default double pressure() {
        return 0;
    }

    /**
     * Asks to be told, through {@link RoomWait#room()}, when this sink has room again for {@code refused}, a message it
     * just refused for capacity. Called on the waiter's event loop; never blocks. A caller registers at most one
     * {@link RoomWait} per connection, and registers it again only after being told (when the message sent again is
     * refused again, it waits at the front); so what waits is bounded by the connections. Waiters are told in the
     * order they came, a few at a time, once the sink's charge is well under its bound. A caller told of room, or
     * whose connection closed, calls {@link #endWait}. False (the default): this sink never tells, and a capacity
     * refusal is final.
     */
    default boolean waitForRoom(RoomWait wait, UplinkMessage refused) {
        return false;
    }

    /**
     * {@code wait} is over: its message was sent again, or its connection closed (then it leaves the queue, so a closed
     * connection is not kept). Any thread; never blocks.
     */
    default void endWait(RoomWait wait) {
    }

    /** Delivers what was accepted and releases resources; the stage completes when flushed. */
    default CompletionStage<Void> close() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
}
