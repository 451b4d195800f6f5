package io.mqttgw.deploy.monitoring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one list of metric names the monitoring files may query, and the one extractor of the names they query.
 * The list is read from the Micrometer meters the gateway modules register in their main sources (every module,
 * so the Kafka, Redis and HTTP-auth meters count although a plain node does not create them), turned into the
 * names Micrometer's Prometheus registry gives them (dots to underscores, the base unit appended, {@code _total} on
 * counters, {@code _seconds} plus {@code _count/_sum/_max/_bucket} on timers). {@code ExportedMetricsIT} checks these
 * naming rules against a running node's {@code /metrics}. Called from test threads only.
 */
public final class ExportedMetrics {
    /** A meter registration: builder type and name, then the rest of the statement (for its base unit). */
    private static final Pattern BUILDER = Pattern.compile(
            "\\b(Counter|FunctionCounter|Gauge|TimeGauge|Timer|FunctionTimer|DistributionSummary|LongTaskTimer)"
                    + "\\.builder\\(\\s*\"(mqttgw\\.[a-z0-9.]+)\"([^;]*)");
    /** {@code registry.gauge("name", ...)} and the gateway's own {@code metrics.gauge("name", ...)} helper. */
    private static final Pattern SHORTHAND = Pattern.compile("\\.(gauge|counter)\\(\\s*\"(mqttgw\\.[a-z0-9.]+)\"");
    private static final Pattern BASE_UNIT =
            Pattern.compile("\\.baseUnit\\(\\s*(?:\"([a-z]+)\"|BaseUnits\\.([A-Z_]+))");
    /** What the monitoring files name: a Prometheus metric of the gateway. */
    private static final Pattern QUERIED = Pattern.compile("\\bmqttgw_[a-z0-9_]+");

    private ExportedMetrics() {
    }

    /** Every Prometheus sample name the gateway's meters produce (all modules). */
    public static Set<String> prometheusNames() {
        Set<String> names = new TreeSet<>();
        Path root = repoRoot();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("gateway-")).toList()) {
                Path sources = module.resolve("src/main/java");
                if (!Files.isDirectory(sources)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(sources)) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                        addMeters(Files.readString(file), names);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** The gateway metric names a dashboard, rule or rule test names (label values and prose included). */
    public static Set<String> queriedNames(String monitoringFile) {
        Set<String> names = new TreeSet<>();
        Matcher m = QUERIED.matcher(monitoringFile);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /** The queried names that are not exported; empty when every query names a real metric. */
    public static Set<String> unknownNames(String monitoringFile) {
        Set<String> unknown = queriedNames(monitoringFile);
        unknown.removeAll(prometheusNames());
        return unknown;
    }

    static void addMeters(String source, Set<String> names) {
        Matcher m = BUILDER.matcher(source);
        while (m.find()) {
            Matcher unit = BASE_UNIT.matcher(m.group(3));
            String baseUnit = unit.find() ? (unit.group(1) != null ? unit.group(1)
                    : unit.group(2).toLowerCase(Locale.ROOT)) : null;
            addPrometheusNames(m.group(1), m.group(2), baseUnit, names);
        }
        Matcher s = SHORTHAND.matcher(source);
        while (s.find()) {
            addPrometheusNames(s.group(1).equals("gauge") ? "Gauge" : "Counter", s.group(2), null, names);
        }
    }

    static void addPrometheusNames(String type, String meterName, String baseUnit, Set<String> names) {
        String base = meterName.replace('.', '_');
        switch (type) {
            case "Counter", "FunctionCounter" -> names.add(withUnit(base, baseUnit) + "_total");
            case "Gauge" -> names.add(withUnit(base, baseUnit));
            case "TimeGauge" -> names.add(base + "_seconds");
            case "Timer", "FunctionTimer" -> addSummary(base + "_seconds", names);
            case "DistributionSummary" -> addSummary(withUnit(base, baseUnit), names);
            case "LongTaskTimer" -> {
                names.add(base + "_seconds_active_count");
                names.add(base + "_seconds_duration_sum");
                names.add(base + "_seconds_max");
            }
            default -> throw new IllegalArgumentException(type);
        }
    }

    private static String withUnit(String base, String baseUnit) {
        return baseUnit == null || base.endsWith("_" + baseUnit) ? base : base + "_" + baseUnit;
    }

    private static void addSummary(String base, Set<String> names) {
        for (String suffix : new String[] {"_count", "_sum", "_max", "_bucket"}) {
            names.add(base + suffix);
        }
    }

    /** The repository's root: the nearest directory above the working directory that holds mvnw. */
    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("mvnw"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("repository root (with mvnw) not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
