package io.mqttgw.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads one YAML file and the overrides, validates every value against its declared key.
 * Precedence, highest first: system property {@code -Dmqttgw.<key>}, environment variable
 * {@code MQTTGW_<KEY>}, the file, the key's default. A key in the file that nobody declared is an error,
 * so a typo never silently falls back to a default.
 */
public final class ConfigLoader {
    private static final String ENVIRONMENT_PREFIX = "MQTTGW_";

    private final Collection<ConfigKey<?>> keys;
    private final Collection<String> openPrefixes;
    private final Map<String, String> environment;
    private final Properties systemProperties;

    public ConfigLoader(Collection<ConfigKey<?>> keys, Map<String, String> environment, Properties systemProperties) {
        this(keys, List.of(), environment, systemProperties);
    }

    /** @param openPrefixes prefixes (ending in a dot) under which undeclared keys pass through as text */
    public ConfigLoader(Collection<ConfigKey<?>> keys, Collection<String> openPrefixes,
                        Map<String, String> environment, Properties systemProperties) {
        this.keys = List.copyOf(keys);
        this.openPrefixes = List.copyOf(openPrefixes);
        this.environment = Map.copyOf(environment);
        this.systemProperties = systemProperties;
    }

    /** Loads {@code file}, or only overrides and defaults when {@code file} is null. */
    public ConfigValues load(Path file) {
        Map<String, String> fromFile = file == null ? Map.of() : readYaml(file);
        Map<String, ConfigKey<?>> declared = keys.stream()
                .collect(Collectors.toMap(ConfigKey::name, k -> k, (a, b) -> a, LinkedHashMap::new));
        Map<String, String> passThrough = new HashMap<>();
        for (Map.Entry<String, String> e : fromFile.entrySet()) {
            if (isOpen(e.getKey())) {
                passThrough.put(e.getKey(), e.getValue());
            }
        }
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith("mqttgw.") && isOpen(name.substring("mqttgw.".length()))) {
                passThrough.put(name.substring("mqttgw.".length()), systemProperties.getProperty(name));
            }
        }
        for (String name : fromFile.keySet()) {
            if (!declared.containsKey(name) && !isOpen(name)) {
                throw new ConfigException("unknown key '" + name + "' in " + file + closest(name, declared.keySet())
                        + "; every key is listed in the README's configuration reference");
            }
        }
        requireKnownEnvironment(declared.values());
        Map<String, Object> values = new HashMap<>();
        Map<String, String> sources = new HashMap<>();
        for (ConfigKey<?> key : declared.values()) {
            String raw;
            String source;
            if (systemProperties.getProperty(key.systemProperty()) != null) {
                raw = systemProperties.getProperty(key.systemProperty());
                source = "system property -D" + key.systemProperty();
            } else if (environment.get(key.environmentVariable()) != null) {
                raw = environment.get(key.environmentVariable());
                source = "environment variable " + key.environmentVariable();
            } else if (fromFile.containsKey(key.name())) {
                raw = fromFile.get(key.name());
                source = String.valueOf(file);
            } else {
                raw = key.defaultValue();
                source = "default";
            }
            if (raw == null) {
                continue;
            }
            try {
                values.put(key.name(), key.parser().apply(raw));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key.name() + " = '" + raw + "' (from " + source + ") is " + e.getMessage()
                        + "; allowed: " + key.allowed());
            }
            sources.put(key.name(), source);
        }
        Path baseDir = file == null ? Path.of("").toAbsolutePath()
                : file.toAbsolutePath().getParent();
        return new ConfigValues(values, sources, passThrough, baseDir);
    }

    /**
     * An {@code MQTTGW_} variable that names no declared key is a typo that would otherwise be ignored in silence,
     * as an unknown key in the file would: refused the same way, with the closest variable that exists.
     */
    private void requireKnownEnvironment(Collection<ConfigKey<?>> declared) {
        Map<String, String> byVariable = new HashMap<>();
        for (ConfigKey<?> key : declared) {
            byVariable.put(key.environmentVariable(), key.name());
        }
        for (String variable : new java.util.TreeSet<>(environment.keySet())) {
            if (!variable.startsWith(ENVIRONMENT_PREFIX) || byVariable.containsKey(variable)) {
                continue;
            }
            String hint = closest(variable, byVariable.keySet());
            for (String prefix : openPrefixes) {
                String open = ENVIRONMENT_PREFIX + prefix.toUpperCase(Locale.ROOT).replace('.', '_')
                        .replace('-', '_');
                if (variable.startsWith(open)) {
                    hint = " (keys under " + prefix + " pass through as they are written, so they are set in the file "
                            + "or with -Dmqttgw." + prefix + "<key>, not in the environment)";
                }
            }
            throw new ConfigException("unknown environment variable " + variable + hint + "; " + ENVIRONMENT_PREFIX
                    + "<KEY> overrides a declared key (upper case, '.' and '-' as '_'), every key is listed in the "
                    + "README's configuration reference");
        }
    }

    private boolean isOpen(String name) {
        for (String prefix : openPrefixes) {
            if (name.startsWith(prefix) && name.length() > prefix.length()) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> readYaml(Path file) {
        Object root;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(reader);
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e, e);
        } catch (YAMLException e) {
            throw new ConfigException("configuration file " + file + " is not valid YAML: " + e.getMessage(), e);
        }
        Map<String, String> flat = new LinkedHashMap<>();
        if (root == null) {
            return flat;
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new ConfigException("configuration file " + file + " must hold a YAML mapping of keys to values");
        }
        flatten("", map, flat, file);
        return flat;
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out, Path file) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String name = prefix + e.getKey();
            Object v = e.getValue();
            if (v instanceof Map<?, ?> child) {
                flatten(name + ".", child, out, file);
            } else if (v instanceof List<?> list) {
                out.put(name, list.stream().map(String::valueOf).collect(Collectors.joining(",")));
            } else if (v == null) {
                throw new ConfigException("key '" + name + "' in " + file + " has no value");
            } else {
                out.put(name, String.valueOf(v));
            }
        }
    }

    /**
     * Keys that were renamed, old name to new: too far apart for the closest-name hint, and a configuration written
     * for an earlier version should say what to write instead.
     */
    private static final Map<String, String> RENAMED = Map.of("shutdown.close-rate", "shutdown.drain-rate");

    private static String closest(String name, Collection<String> candidates) {
        for (Map.Entry<String, String> r : RENAMED.entrySet()) {
            if (r.getKey().equals(name)) {
                return " (renamed to '" + r.getValue() + "')";
            }
            if (environmentVariable(r.getKey()).equals(name)) {
                return " (renamed to " + environmentVariable(r.getValue()) + ")";
            }
        }
        return ClosestName.of(name, candidates, Math.max(3, name.length() / 4))
                .map(best -> " (did you mean '" + best + "'?)").orElse("");
    }

    private static String environmentVariable(String key) {
        return ENVIRONMENT_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** All declared keys of core plus {@code extra}, for callers that assemble them from providers. */
    public static List<ConfigKey<?>> withCoreKeys(Collection<ConfigKey<?>> extra) {
        List<ConfigKey<?>> all = new ArrayList<>(CoreConfigKeys.ALL);
        all.addAll(extra);
        return all;
    }
}
