package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.AuthenticatorProvider;
import io.mqttgw.core.spi.ProviderContext;

/** {@code auth.provider: certificate}, the default. */
public final class CertificateAuthenticatorProvider implements AuthenticatorProvider {
    @Override
    public String name() {
        return "certificate";
    }

    @Override
    public Authenticator create(ProviderContext context) {
        return new CertificateAuthenticator(context.config().auth().allowWithoutCertificate());
    }
}
