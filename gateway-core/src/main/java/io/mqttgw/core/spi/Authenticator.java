package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/**
 * Decides whether a device may connect. Called on an event loop: must return at once and complete later.
 * The gateway bounds the wait ({@code auth.timeout}); a stage completed exceptionally refuses with
 * CONNACK server unavailable.
 */
public interface Authenticator {
    CompletionStage<AuthResult> authenticate(AuthRequest request);

    default HealthStatus health() {
        return HealthStatus.UP;
    }

    default void close() {
    }
}
