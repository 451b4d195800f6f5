package io.mqttgw.core.spi;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.config.GatewayConfig;

/** What a provider gets to build its component: the configuration snapshot and the node's meter registry. */
public record ProviderContext(GatewayConfig config, MeterRegistry meters) {
    public String nodeId() {
        return config.nodeId();
    }
}
