package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;

/** What a CONNECT gets when the service cannot answer it ({@code auth.http.on-failure}). */
public enum FailurePolicy {
    /** CONNACK server unavailable; the device retries later. */
    REFUSE,
    /**
     * Devices whose certificate verified (and yielded an identity) connect with the configured ACL; others are
     * refused.
     */
    ALLOW_VERIFIED_CERTIFICATE;

    private static final AuthResult UNAVAILABLE = AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE);

    public static FailurePolicy of(String configured) {
        return "allow-verified-certificate".equals(configured) ? ALLOW_VERIFIED_CERTIFICATE : REFUSE;
    }

    public AuthResult decide(AuthRequest request) {
        return this == ALLOW_VERIFIED_CERTIFICATE && request.certificateIdentity() != null
                ? AuthResult.ALLOWED : UNAVAILABLE;
    }
}
