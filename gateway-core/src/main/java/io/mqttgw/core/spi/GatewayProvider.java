package io.mqttgw.core.spi;

import io.mqttgw.core.config.ConfigKey;
import java.util.List;

/** What every provider found by ServiceLoader has: the name config selects it by, and the keys it reads. */
public interface GatewayProvider {
    /** The name used in configuration, e.g. {@code file} for {@code uplink.sink: file}. */
    String name();

    /** Configuration keys this provider reads; they become valid keys in the gateway's file. */
    default List<ConfigKey<?>> configKeys() {
        return List.of();
    }
}
