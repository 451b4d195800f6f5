package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.Authenticator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Trusts the TLS layer: a device whose certificate verified against the configured CAs (and yielded an identity)
 * is allowed; one without a certificate only when {@code auth.certificate.allow-without-certificate} is true.
 * Answers synchronously with shared completed stages. Thread-safe.
 */
public final class CertificateAuthenticator implements Authenticator {
    private static final CompletionStage<AuthResult> ALLOW = CompletableFuture.completedFuture(AuthResult.ALLOWED);
    private static final CompletionStage<AuthResult> DENY =
            CompletableFuture.completedFuture(AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED));

    private final boolean allowWithoutCertificate;

    public CertificateAuthenticator(boolean allowWithoutCertificate) {
        this.allowWithoutCertificate = allowWithoutCertificate;
    }

    @Override
    public CompletionStage<AuthResult> authenticate(AuthRequest request) {
        if (request.certificateIdentity() != null) {
            return ALLOW;
        }
        return allowWithoutCertificate && request.certificate() == null ? ALLOW : DENY;
    }
}
