package io.mqttgw.core.spi;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Where the TLS listener's session-ticket keys come from: one key per rotation period ("epoch", counted from the Unix
 * epoch in periods of {@code listener.tls.ticket-key-rotation}), the same on every node that shares the source, so a
 * device resumes its session on whichever node the balancer sends it to. Key material is 48 bytes: a 16-byte key
 * name, a 16-byte HMAC key and a 16-byte AES key. It lives in memory only: a source must never write it to a file.
 * Implementations never block the caller (the node's housekeeping thread); completion may come on any thread.
 */
public interface TicketKeySource extends AutoCloseable {
    /** Bytes of one key's material. */
    int KEY_BYTES = 48;

    /**
     * The key of {@code epoch} that all nodes agree on: the first one offered for that epoch wins, so a node offers
     * {@code candidate} (fresh random material of its own) and gets back either it or the one another node offered
     * first. Fails (exceptionally) when the shared store cannot answer; the caller then keeps what it has.
     *
     * @param keepFor how long the key must stay readable for other nodes (its epoch, plus the time tickets made
     *                with it may still be presented)
     */
    CompletionStage<byte[]> keyFor(long epoch, byte[] candidate, Duration keepFor);

    /** One line for the startup log: where the keys come from. */
    String describe();

    /** Whether other nodes see the same keys (false: this node only). */
    boolean shared();

    @Override
    default void close() {
    }
}
