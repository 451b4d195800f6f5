package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkSink;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Accepts every message at once and keeps nothing: the baseline that benchmarks compare real sinks with. */
public final class DiscardSink implements UplinkSink {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    @Override
    public CompletionStage<Void> send(UplinkMessage message) {
        return DONE;
    }
}
