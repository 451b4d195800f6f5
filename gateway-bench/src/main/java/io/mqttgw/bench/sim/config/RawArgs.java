package io.mqttgw.bench.sim.config;

import io.mqttgw.core.config.ClosestName;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name value} pairs after the subcommand, with typed, range-checked getters. Every option must be one of
 * the declared names; an unknown one is an error (with the closest known name), so a typo never runs a default.
 * Not thread-safe; used once at startup.
 */
public final class RawArgs {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Set<String> used = new HashSet<>();

    private RawArgs() {
    }

    /** Parses {@code args} (options only, no subcommand), checking each name against {@code known}. */
    public static RawArgs parse(List<String> args, Set<String> known) {
        RawArgs raw = new RawArgs();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new BadArgumentException("unexpected argument '" + arg + "'; options look like --devices 1000");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                value = args.get(++i);
            } else {
                throw new BadArgumentException("option --" + name + " needs a value");
            }
            if (!known.contains(name)) {
                throw new BadArgumentException("unknown option --" + name + closest(name, known));
            }
            if (raw.values.put(name, value) != null) {
                throw new BadArgumentException("option --" + name + " given twice");
            }
        }
        return raw;
    }

    private static String closest(String name, Set<String> known) {
        return ClosestName.of(name, known, 3).map(best -> "; did you mean --" + best + "?").orElse("");
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String string(String name, String fallback) {
        used.add(name);
        return values.getOrDefault(name, fallback);
    }

    public long number(String name, long fallback, long min, long max) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        long parsed;
        try {
            parsed = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new BadArgumentException("--" + name + " = '" + v + "' is not a whole number");
        }
        if (parsed < min || parsed > max) {
            throw new BadArgumentException("--" + name + " = " + v + " is out of range; allowed: " + min + " to " + max);
        }
        return parsed;
    }

    public int integer(String name, int fallback, int min, int max) {
        return (int) number(name, fallback, min, max);
    }

    public double decimal(String name, double fallback, double min, double max) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        double parsed;
        try {
            parsed = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new BadArgumentException("--" + name + " = '" + v + "' is not a number");
        }
        if (!(parsed >= min && parsed <= max)) {
            throw new BadArgumentException("--" + name + " = " + v + " is out of range; allowed: " + min + " to " + max);
        }
        return parsed;
    }

    public boolean bool(String name, boolean fallback) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        return switch (v) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new BadArgumentException("--" + name + " = '" + v + "'; allowed: true or false");
        };
    }

    /** A duration written {@code 500ms}, {@code 10s}, {@code 2m} or {@code 1h}, between {@code min} and {@code max}. */
    public Duration duration(String name, Duration fallback, Duration min, Duration max) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        Duration parsed = parseDuration(v);
        if (parsed == null) {
            throw new BadArgumentException("--" + name + " = '" + v + "' is not a duration; write 500ms, 10s, 2m or 1h");
        }
        if (parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
            throw new BadArgumentException("--" + name + " = " + v + " is out of range; allowed: " + min.toMillis()
                    + "ms to " + max.toSeconds() + "s");
        }
        return parsed;
    }

    static Duration parseDuration(String v) {
        int unitAt = 0;
        while (unitAt < v.length() && (Character.isDigit(v.charAt(unitAt)))) {
            unitAt++;
        }
        if (unitAt == 0 || unitAt > 12) {
            return null;
        }
        long n = Long.parseLong(v.substring(0, unitAt));
        return switch (v.substring(unitAt)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> null;
        };
    }

    public <E extends Enum<E>> E choice(String name, E fallback, Class<E> type) {
        String v = string(name, null);
        if (v == null) {
            return fallback;
        }
        List<String> allowed = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            String label = e.name().toLowerCase().replace('_', '-');
            if (label.equals(v)) {
                return e;
            }
            allowed.add(label);
        }
        throw new BadArgumentException("--" + name + " = '" + v + "'; allowed: " + String.join(", ", allowed));
    }

    /** The options given on the command line, in their order, for passing on to worker processes. */
    public Map<String, String> given() {
        return Map.copyOf(values);
    }
}
