package io.mqttgw.core.config;

/** A configuration that cannot start the gateway; the message names the key, the value and what is allowed. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
