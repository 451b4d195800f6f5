package io.mqttgw.core.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for the written forms of configuration values; each rejects what it cannot read. */
public final class ValueParsers {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(us|ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");

    /** What {@link #intRangeOrAuto} returns for {@code auto}. */
    public static final int AUTO = -1;

    private ValueParsers() {
    }

    public static Function<String, Integer> intRange(int min, int max) {
        return s -> {
            int v;
            try {
                v = Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a whole number");
            }
            if (v < min || v > max) {
                throw new IllegalArgumentException("out of range");
            }
            return v;
        };
    }

    /** {@link #AUTO} for {@code auto} (a value the node derives at startup), else a whole number in the range. */
    public static Function<String, Integer> intRangeOrAuto(int min, int max) {
        Function<String, Integer> number = intRange(min, max);
        return s -> "auto".equals(s.trim().toLowerCase(Locale.ROOT)) ? AUTO : number.apply(s);
    }

    public static Function<String, Boolean> bool() {
        return s -> switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not true or false");
        };
    }

    public static Function<String, String> string() {
        return String::trim;
    }

    public static Function<String, String> nonEmpty() {
        return s -> {
            if (s.isBlank()) {
                throw new IllegalArgumentException("empty");
            }
            return s.trim();
        };
    }

    /**
     * An MQTT 5.0 Server Reference: printable ASCII without control characters, at most 200 characters so the
     * DISCONNECT carrying it stays small; the specification leaves its form to the implementation.
     */
    public static Function<String, String> serverReference() {
        return s -> {
            String v = s.trim();
            if (v.isEmpty() || v.length() > 200) {
                throw new IllegalArgumentException(v.isEmpty() ? "empty" : "longer than 200 characters");
            }
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c < 0x20 || c > 0x7E) {
                    throw new IllegalArgumentException("not printable ASCII");
                }
            }
            return v;
        };
    }

    public static Function<String, List<String>> list() {
        return s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    /** A non-empty comma-separated list, in the caller's order, of words among {@code allowed} (exact spelling). */
    public static Function<String, List<String>> subsetOf(String... allowed) {
        List<String> known = List.of(allowed);
        return s -> {
            List<String> v = list().apply(s);
            if (v.isEmpty() || !known.containsAll(v)) {
                throw new IllegalArgumentException("not a subset of " + String.join(",", known));
            }
            return v;
        };
    }

    /** One of the given words, case-insensitive, returned in lower case. */
    public static Function<String, String> oneOf(String... words) {
        return s -> {
            String v = s.trim().toLowerCase(Locale.ROOT);
            for (String w : words) {
                if (w.equals(v)) {
                    return w;
                }
            }
            throw new IllegalArgumentException("not one of the allowed words");
        };
    }

    /**
     * Durations as {@code 800us}, {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 30d}; bounded inclusive.
     */
    public static Function<String, Duration> duration(Duration min, Duration max) {
        return s -> {
            Matcher m = DURATION.matcher(s.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("not a duration");
            }
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "us" -> Duration.ofNanos(n * 1000);
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException("out of range");
            }
            return d;
        };
    }

    /**
     * Byte sizes as a number with an optional {@code B}, {@code KiB}, {@code MiB} or {@code GiB}; bounded inclusive.
     */
    public static Function<String, Long> size(long min, long max) {
        return s -> {
            Matcher m = SIZE.matcher(s.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("not a size");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "B" : m.group(2);
            long v = switch (unit) {
                case "KiB" -> n << 10;
                case "MiB" -> n << 20;
                case "GiB" -> n << 30;
                default -> n;
            };
            if (v < min || v > max) {
                throw new IllegalArgumentException("out of range");
            }
            return v;
        };
    }
}
