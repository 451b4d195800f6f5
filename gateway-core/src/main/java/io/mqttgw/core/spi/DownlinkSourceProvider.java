package io.mqttgw.core.spi;

/** Builds a {@link DownlinkSource}; found with ServiceLoader, selected by {@code downlink.source}. */
public interface DownlinkSourceProvider extends GatewayProvider {
    DownlinkSource create(ProviderContext context);
}
