package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.DownlinkSourceProvider;
import io.mqttgw.core.spi.ProviderContext;

/** {@code downlink.source: none}, the default. */
public final class NoDownlinkSourceProvider implements DownlinkSourceProvider {
    @Override
    public String name() {
        return "none";
    }

    @Override
    public DownlinkSource create(ProviderContext context) {
        return new NoDownlinkSource();
    }
}
