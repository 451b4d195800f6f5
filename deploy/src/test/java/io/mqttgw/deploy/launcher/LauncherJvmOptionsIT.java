package io.mqttgw.deploy.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JVM options the packaged launcher chooses ({@code bin/gateway jvm-options}): the flags that depend on the Java
 * version follow the version the launcher finds, and every profile's flags start the Java that runs this test.
 */
class LauncherJvmOptionsIT {
    private static final Path LAUNCHER = Path.of("target", "mqtt-gateway", "bin", "gateway");
    private static final String PREVENTIVE_OFF = "-XX:-G1UsePreventiveGC";

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"17.0.15", "20.0.2"})
    void turnsOffPreventiveCollectionsBeforeJava21(String version) throws Exception {
        List<String> options = jvmOptions(fakeJava(version), "density");
        int off = options.indexOf(PREVENTIVE_OFF);
        assertTrue(off > 0, "Java " + version + ": " + options);
        // a diagnostic flag: refused unless unlocked before it
        assertTrue(options.subList(0, off).contains("-XX:+UnlockDiagnosticVMOptions"), options.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"21.0.5", "25"})
    void leavesOutTheFlagThatJava21Removed(String version) throws Exception {
        List<String> options = jvmOptions(fakeJava(version), "density");
        assertFalse(options.stream().anyMatch(o -> o.contains("PreventiveGC")), "Java " + version + ": " + options);
    }

    @ParameterizedTest
    @ValueSource(strings = {"17.0.15", "19.0.2"})
    void leavesCardRefinementToTheYoungCollectionBeforeJava20(String version) throws Exception {
        List<String> options = jvmOptions(fakeJava(version), "density");
        assertTrue(options.contains("-XX:-G1UseAdaptiveConcRefinement"), "Java " + version + ": " + options);
        assertTrue(options.contains("-XX:G1ConcRefinementGreenZone=4096"), "Java " + version + ": " + options);
    }

    @ParameterizedTest
    @ValueSource(strings = {"20.0.2", "21.0.5", "25"})
    void leavesOutTheRefinementFlagsJava20Deprecated(String version) throws Exception {
        List<String> options = jvmOptions(fakeJava(version), "");
        assertFalse(options.stream().anyMatch(o -> o.contains("ConcRefinement")), "Java " + version + ": " + options);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "g1-small", "g1-large", "density"})
    void everyProfileStartsTheJavaThatRunsTheTests(String profile) throws Exception {
        Path javaHome = Path.of(System.getProperty("java.home"));
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(jvmOptions(javaHome, profile));
        command.add("-version");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "java -version did not end");
        assertEquals(0, p.exitValue(), "profile '" + profile + "' on " + javaHome + ": " + command + "\n" + out);
    }

    /**
     * A JAVA_HOME whose {@code bin/java -version} answers like a JDK of that version, the way the launcher reads it.
     */
    private Path fakeJava(String version) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("jdk-" + version).resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2025-10-21' >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin.getParent();
    }

    private List<String> jvmOptions(Path javaHome, String profile) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(LAUNCHER), "the distribution is built into " + LAUNCHER);
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString(), "jvm-options"));
        if (!profile.isEmpty()) {
            command.addAll(List.of(profile, "--connections", "19000"));
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("JAVA_HOME", javaHome.toString());
        env.put("GATEWAY_LOG_DIR", dir.resolve("logs").toString());
        env.remove("JAVA_OPTS");
        env.remove("GATEWAY_JVM_PROFILE");
        env.remove("GATEWAY_JVM_OPTIONS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jvm-options did not end");
        assertEquals(0, p.exitValue(), err);
        return out.lines().filter(l -> !l.isBlank()).toList();
    }
}
