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

    /**
     * Prefixes under which any key is accepted and passed through as text, for settings of a client library the
     * provider hands on unread (e.g. {@code uplink.kafka.producer.} for Kafka producer properties). Each ends in a
     * dot. They are read from the file and system properties only, since environment variable names cannot carry
     * the dots of the library's own keys.
     */
    default List<String> openPrefixes() {
        return List.of();
    }
}
