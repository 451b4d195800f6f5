package io.mqttgw.core.spi;

/** Builds an {@link Authenticator}; found with ServiceLoader, selected by {@code auth.provider}. */
public interface AuthenticatorProvider extends GatewayProvider {
    Authenticator create(ProviderContext context);
}
