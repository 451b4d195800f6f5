package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscriptions;
import java.util.ArrayDeque;

/**
 * One persistent session of {@link InMemorySessionStore}. Guarded by its own monitor, taken by whichever thread calls
 * the store for its device, so devices never contend with each other.
 */
final class MemorySession {
    /** Immutable, shared with the connection that saved it (no copy per side). */
    Subscriptions subscriptions = Subscriptions.NONE;
    final ArrayDeque<SessionStore.StoredMessage> pending = new ArrayDeque<>(2);
    /** 0 while the device is connected. */
    long expiresAtMillis;
    /** Epoch of the connection that opened it last. */
    long epoch;

    /** Whether its device is disconnected and it expired at or before {@code now}. */
    boolean expired(long now) {
        synchronized (this) {
            return expiresAtMillis != 0 && expiresAtMillis <= now;
        }
    }
}
