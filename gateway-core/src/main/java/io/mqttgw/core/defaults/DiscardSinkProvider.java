package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.spi.UplinkSinkProvider;

/** {@code uplink.sink: discard}. */
public final class DiscardSinkProvider implements UplinkSinkProvider {
    @Override
    public String name() {
        return "discard";
    }

    @Override
    public UplinkSink create(ProviderContext context) {
        return new DiscardSink();
    }
}
