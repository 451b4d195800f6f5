package io.mqttgw.core.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Validated values of every declared key, immutable. Keys absent everywhere and without a default
 * have no value. Relative paths resolve against the directory of the configuration file.
 */
public final class ConfigValues {
    private final Map<String, Object> values;
    private final Map<String, String> sources;
    private final Map<String, String> passThrough;
    private final Path baseDir;

    ConfigValues(Map<String, Object> values, Map<String, String> sources, Map<String, String> passThrough,
                 Path baseDir) {
        this.values = Map.copyOf(values);
        this.sources = Map.copyOf(sources);
        this.passThrough = Map.copyOf(passThrough);
        this.baseDir = baseDir;
    }

    /** The pass-through settings under an open {@code prefix}, with the prefix removed from their names. */
    public Map<String, String> under(String prefix) {
        Map<String, String> out = new java.util.TreeMap<>();
        passThrough.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    @SuppressWarnings("unchecked")
    public <T> Optional<T> find(ConfigKey<T> key) {
        return Optional.ofNullable((T) values.get(key.name()));
    }

    /** The value; for a key with neither a value nor a default, a {@link ConfigException} naming it. */
    public <T> T get(ConfigKey<T> key) {
        return find(key).orElseThrow(() -> new ConfigException(key.name() + " is required: set it in the "
                + "configuration file, as " + key.environmentVariable() + " or as -D" + key.systemProperty()
                + " (" + key.allowed() + ")"));
    }

    /** A path value resolved against the configuration file's directory. */
    public Path path(ConfigKey<String> key) {
        return baseDir.resolve(get(key)).normalize();
    }

    /** Where the value of the key came from (file, environment variable, system property or default). */
    public String source(ConfigKey<?> key) {
        return sources.getOrDefault(key.name(), "default");
    }

    /** A {@link ConfigException} that names the key, its value, its source and what is allowed. */
    public ConfigException invalid(ConfigKey<?> key, String why) {
        return new ConfigException(key.name() + " = '" + values.get(key.name()) + "' (from " + source(key) + ") "
                + why + "; allowed: " + key.allowed());
    }

    /** The keys (declared and pass-through) whose values differ between this and {@code other}, sorted. */
    public java.util.SortedSet<String> changedKeys(ConfigValues other) {
        java.util.SortedSet<String> changed = new java.util.TreeSet<>();
        differing(values, other.values, changed);
        differing(passThrough, other.passThrough, changed);
        return changed;
    }

    private static void differing(Map<String, ?> a, Map<String, ?> b, java.util.Set<String> out) {
        java.util.Set<String> names = new java.util.HashSet<>(a.keySet());
        names.addAll(b.keySet());
        for (String name : names) {
            if (!java.util.Objects.equals(a.get(name), b.get(name))) {
                out.add(name);
            }
        }
    }

    public Path baseDir() {
        return baseDir;
    }
}
