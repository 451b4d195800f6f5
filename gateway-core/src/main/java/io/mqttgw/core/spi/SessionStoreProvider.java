package io.mqttgw.core.spi;

/** Builds a {@link SessionStore}; found with ServiceLoader, selected by {@code session.provider}. */
public interface SessionStoreProvider extends GatewayProvider {
    SessionStore create(ProviderContext context);
}
