package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.config.CertMode;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.MqttVersion;
import io.mqttgw.bench.sim.config.SourceAddresses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value types of the bench options, as written on the command line: durations {@code 500ms 10s 2m 1h}, enum
 * labels in lower case with dashes ({@code per-device}), booleans {@code true/false/yes/no/on/off}, source address
 * ranges. A bad value fails with picocli's "Invalid value for option '--x'" followed by what to write instead.
 */
final class Converters {
    private Converters() {
    }

    /** Registers every converter on {@code cl} and its subcommands (call after the subcommands are added). */
    static void registerAll(CommandLine cl) {
        cl.registerConverter(Duration.class, Converters::duration);
        cl.registerConverter(Boolean.class, Converters::bool);
        cl.registerConverter(Boolean.TYPE, Converters::bool);
        cl.registerConverter(KeyAlgorithm.class, labelled(KeyAlgorithm.class));
        cl.registerConverter(CertMode.class, labelled(CertMode.class));
        cl.registerConverter(MqttVersion.class, Converters::mqttVersion);
        cl.registerConverter(SourceAddresses.class, text -> {
            try {
                return SourceAddresses.parse("source", text);
            } catch (BadArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        });
    }

    /** {@code 500ms}, {@code 10s}, {@code 2m} or {@code 1h}. */
    static Duration duration(String v) {
        int unitAt = 0;
        while (unitAt < v.length() && Character.isDigit(v.charAt(unitAt))) {
            unitAt++;
        }
        Duration d = null;
        if (unitAt > 0 && unitAt <= 12) {
            long n = Long.parseLong(v.substring(0, unitAt));
            d = switch (v.substring(unitAt)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> null;
            };
        }
        if (d == null) {
            throw new TypeConversionException("'" + v + "' is not a duration; write 500ms, 10s, 2m or 1h");
        }
        return d;
    }

    static Boolean bool(String v) {
        return switch (v) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new TypeConversionException("'" + v + "'; write true or false");
        };
    }

    static MqttVersion mqttVersion(String v) {
        try {
            return MqttVersion.ofLabel(v);
        } catch (BadArgumentException e) {
            throw new TypeConversionException("'" + v + "'; write 3.1.1 or 5");
        }
    }

    /** The command-line spelling of an enum constant: lower case, dashes for underscores. */
    static String label(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static <E extends Enum<E>> ITypeConverter<E> labelled(Class<E> type) {
        return v -> {
            for (E e : type.getEnumConstants()) {
                if (label(e).equals(v)) {
                    return e;
                }
            }
            throw new TypeConversionException("'" + v + "'; write one of " + String.join(", ", labels(type)));
        };
    }

    static <E extends Enum<E>> List<String> labels(Class<E> type) {
        List<String> out = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            out.add(label(e));
        }
        return out;
    }

    /** Completion candidates (and the list in the help text) for {@code --algorithm}. */
    static final class Algorithms implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return labels(KeyAlgorithm.class).iterator();
        }
    }

    /** Completion candidates for {@code --certs}. */
    static final class CertModes implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return labels(CertMode.class).iterator();
        }
    }

    /** Completion candidates for {@code --mqtt-version}. */
    static final class MqttVersions implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("3.1.1", "5").iterator();
        }
    }

    /** Completion candidates for {@code --profile}. */
    static final class Profiles implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("idle", "field").iterator();
        }
    }

    /** Completion candidates for {@code --resume}. */
    static final class Booleans implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("true", "false").iterator();
        }
    }
}
