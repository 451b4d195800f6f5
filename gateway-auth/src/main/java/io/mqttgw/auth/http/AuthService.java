package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthRequest;
import java.util.concurrent.CompletionStage;

/**
 * The remote decision, one call per invocation, no caching or limits of its own. Must return at once (it is called
 * on event loops) and complete exceptionally, with an {@link AuthServiceException} where it can, when it has no
 * answer.
 */
public interface AuthService extends AutoCloseable {
    /** @param fingerprint SHA-256 of the device certificate, or null without one */
    CompletionStage<ServiceAnswer> call(AuthRequest request, String fingerprint);

    @Override
    void close();
}
