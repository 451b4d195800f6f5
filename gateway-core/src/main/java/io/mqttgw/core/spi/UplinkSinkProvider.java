package io.mqttgw.core.spi;

/** Builds an {@link UplinkSink}; found with ServiceLoader, selected by {@code uplink.sink}. */
public interface UplinkSinkProvider extends GatewayProvider {
    UplinkSink create(ProviderContext context);
}
