package io.mqttgw.core.config;

import java.util.Objects;

/**
 * The node's configuration as it is now: an immutable {@link GatewayConfig} snapshot behind a volatile reference,
 * replaced whole by a reload. Components whose keys may change at runtime read {@link #current()} when they decide
 * (a CONNECT reads the ACL once); everything else keeps the snapshot it started with. Any thread.
 */
public final class LiveConfig {
    private volatile GatewayConfig current;

    public LiveConfig(GatewayConfig initial) {
        this.current = Objects.requireNonNull(initial, "initial");
    }

    public GatewayConfig current() {
        return current;
    }

    /** Makes {@code next} the configuration new decisions read. */
    public void replace(GatewayConfig next) {
        this.current = Objects.requireNonNull(next, "next");
    }
}
