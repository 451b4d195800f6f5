package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.TicketKeySource;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code listener.tls.ticket-key-source: local} (and {@code auto} without a shared store): every key is the node's own
 * random candidate, in memory only. Tickets resume on this node, across key rotations, but not on another node or
 * after a restart. Stateless; any thread.
 */
public final class LocalTicketKeySource implements TicketKeySource {
    @Override
    public CompletionStage<byte[]> keyFor(long epoch, byte[] candidate, Duration keepFor) {
        return CompletableFuture.completedFuture(candidate);
    }

    @Override
    public String describe() {
        return "local (this node's memory; resumption on this node only)";
    }

    @Override
    public boolean shared() {
        return false;
    }
}
