package io.mqttgw.core.config;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key, declared once with its type, default and documentation.
 * The README's configuration reference is checked against these declarations by a test.
 *
 * @param name         dotted key as written in YAML, e.g. {@code listener.tls.port}
 * @param defaultValue default in its written form, or {@code null} when the key is required
 *                     or absent by default
 * @param allowed      what a valid value looks like, quoted in errors
 * @param doc          one sentence for the reference
 * @param parser       turns the written form into a value; throws {@link IllegalArgumentException}
 *                     when it is not allowed
 */
public record ConfigKey<T>(String name, String defaultValue, String allowed, String doc,
                           Function<String, T> parser) {

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allowed, "allowed");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(parser, "parser");
    }

    /** Environment variable that overrides this key: {@code MQTTGW_} + upper case, dots and dashes as underscores. */
    public String environmentVariable() {
        return "MQTTGW_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** System property that overrides this key. */
    public String systemProperty() {
        return "mqttgw." + name;
    }
}
