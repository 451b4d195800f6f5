package io.mqttgw.core.identity;

/**
 * How a connection proved its identity. Recorded once per connection; a connection of one kind never takes over, nor
 * is taken over by, a connection or persistent session of the other kind with the same client id.
 */
public enum IdentityProof {
    /** The identity was read from a client certificate the TLS handshake verified. */
    CERTIFICATE,
    /** No client certificate: the identity is the client id, vouched for by the authenticator alone, if at all. */
    NO_CERTIFICATE;

    /**
     * Prefix of the session-store key of a session proven without a certificate. It contains '/', which no accepted
     * identity contains ({@link IdentityRules}), so it can never be the key of a certificate-proven session.
     */
    public static final String NO_CERTIFICATE_SESSION_PREFIX = "no-certificate/";

    /** The key the session store keeps this identity's persistent session under. */
    public String sessionKey(String identity) {
        return this == CERTIFICATE ? identity : NO_CERTIFICATE_SESSION_PREFIX + identity;
    }
}
