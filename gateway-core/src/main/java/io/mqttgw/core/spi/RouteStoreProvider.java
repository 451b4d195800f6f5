package io.mqttgw.core.spi;

/** Builds a {@link RouteStore}; found with ServiceLoader, selected by {@code routes.provider}. */
public interface RouteStoreProvider extends GatewayProvider {
    RouteStore create(ProviderContext context);
}
