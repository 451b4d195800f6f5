package io.mqttgw.core.testkit;

import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.spi.UplinkSinkProvider;

/** {@code uplink.sink: controlled}, for tests. */
public final class ControlledSinkProvider implements UplinkSinkProvider {
    @Override
    public String name() {
        return "controlled";
    }

    @Override
    public UplinkSink create(ProviderContext context) {
        return new ControlledSink();
    }
}
