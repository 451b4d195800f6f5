package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthResult;

/**
 * The service's answer to one call.
 *
 * @param result      allow (with attributes) or a refusal
 * @param maxAgeNanos how long it may be remembered, from the answer's Cache-Control; {@link #DEFAULT_TTL} when the
 *                    answer does not say (the configured TTL applies), 0 when it must not be remembered
 */
public record ServiceAnswer(AuthResult result, long maxAgeNanos) {
    public static final long DEFAULT_TTL = -1;
}
