package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The running build as a metric, {@code mqttgw_build_info{version,java} 1}: which version each node runs, during a
 * rolling upgrade and after it, joins onto any other series by node. The version is that of the gateway-core jar
 * (its file name, as the distribution ships it); "unknown" when run from classes (an IDE, the build's tests).
 */
public final class BuildInfo {
    private BuildInfo() {
    }

    public static void register(MeterRegistry registry) {
        Gauge.builder("mqttgw.build.info", () -> 1).tag("version", version())
                .tag("java", Runtime.version().toString())
                .description("1, labelled with the gateway's version and the Java runtime's").register(registry);
    }

    public static String version() {
        Package p = BuildInfo.class.getPackage();
        if (p != null && p.getImplementationVersion() != null) {
            return p.getImplementationVersion();
        }
        try {
            return fromJarName(Path.of(BuildInfo.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .getFileName().toString());
        } catch (URISyntaxException | RuntimeException e) {
            // no code source location to read: no version to tell
            return "unknown";
        }
    }

    /** {@code gateway-core-0.1.0.jar} -> {@code 0.1.0}; anything else (a classes directory) -> {@code unknown}. */
    static String fromJarName(String name) {
        if (name.startsWith("gateway-core-") && name.endsWith(".jar") && name.length() > "gateway-core-.jar".length()) {
            return name.substring("gateway-core-".length(), name.length() - ".jar".length());
        }
        return "unknown";
    }
}
