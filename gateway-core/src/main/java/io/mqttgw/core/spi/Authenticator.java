package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/**
 * Decides whether a device may connect. Called on an event loop: must return at once and complete later.
 * The gateway bounds the wait ({@code auth.timeout}); a stage completed exceptionally refuses with
 * CONNACK server unavailable.
 */
public interface Authenticator {
    CompletionStage<AuthResult> authenticate(AuthRequest request);

    /**
     * The provider's own configuration keys that a reload ({@code SIGHUP}, {@code POST /config/reload}) may change
     * while it runs; {@link #reconfigure} receives them. None by default: a change then needs a restart.
     */
    default java.util.Set<String> reloadableKeys() {
        return java.util.Set.of();
    }

    /**
     * Takes the new values of {@link #reloadableKeys} from a reloaded, already validated configuration; on the
     * reloading thread, never an event loop.
     */
    default void reconfigure(io.mqttgw.core.config.GatewayConfig next) {
    }

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    default void close() {
    }
}
