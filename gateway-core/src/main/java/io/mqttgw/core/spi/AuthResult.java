package io.mqttgw.core.spi;

import java.util.Map;

/**
 * The answer to an {@link AuthRequest}: a decision and attributes (tenant, allowed topics, ...). The attributes
 * {@value #ACL_PUBLISH} and {@value #ACL_SUBSCRIBE} (comma-separated topic filters, {@code {client-id}} allowed) give
 * the device its own topic ACL instead of the configured one.
 */
public record AuthResult(Decision decision, Map<String, String> attributes) {

    /** Outcomes, each with the MQTT 3.1.1 CONNACK return code it maps to. */
    public enum Decision {
        ALLOW,
        NOT_AUTHORIZED,
        BAD_CREDENTIALS,
        SERVER_UNAVAILABLE
    }

    public static final String ACL_PUBLISH = "acl.publish";
    public static final String ACL_SUBSCRIBE = "acl.subscribe";

    public static final AuthResult ALLOWED = new AuthResult(Decision.ALLOW, Map.of());

    public AuthResult {
        attributes = Map.copyOf(attributes);
    }

    public static AuthResult deny(Decision decision) {
        return new AuthResult(decision, Map.of());
    }

    public boolean allowed() {
        return decision == Decision.ALLOW;
    }
}
