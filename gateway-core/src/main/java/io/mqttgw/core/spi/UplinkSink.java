package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/**
 * Where device PUBLISHes go. {@link #send} is called on an event loop (and, for a delayed will a shared store
 * handed over, on that store's thread): it must never block and must bound what it holds. The stage completes when
 * the message is durably accepted downstream; the gateway sends the QoS 1 PUBACK (or QoS 2 PUBREC) only then. A sink
 * that is full completes the stage exceptionally with {@link UplinkRejectedException} at once.
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

    /** Delivers what was accepted and releases resources; the stage completes when flushed. */
    default CompletionStage<Void> close() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
}
