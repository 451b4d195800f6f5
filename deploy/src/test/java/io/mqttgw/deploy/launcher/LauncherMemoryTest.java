package io.mqttgw.deploy.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the launcher sizes the heap from the memory it finds: a cgroup limit (a container's at the root of its
 * cgroup tree, or a systemd unit's MemoryMax= in the process's own cgroup) gets the profile's fixed, pre-touched
 * heap; no limit at all gets the same ceiling but neither a fixed start nor pre-touch, since half of a shared host is
 * not memory set aside for the node. Runs the source tree's launcher in a distribution laid out as the build lays it
 * out, with a fake Java that prints its arguments and a fake cgroup tree (GATEWAY_CGROUP_ROOT).
 */
class LauncherMemoryTest {
    private static final long GIB = 1024L * 1024 * 1024;

    @TempDir
    Path dir;
    private Path dist;
    private Path javaHome;
    private Path cgroups;

    @BeforeEach
    void distribution() throws IOException {
        dist = dir.resolve("mqtt-gateway");
        Path bin = Files.createDirectories(dist.resolve("bin"));
        Files.createDirectories(dist.resolve("lib"));
        Path profiles = Files.createDirectories(dist.resolve("config").resolve("jvm-profiles"));
        Files.copy(Path.of("src/main/dist/bin/gateway"), bin.resolve("gateway"));
        executable(bin.resolve("gateway"));
        try (Stream<Path> options = Files.list(Path.of("..", "jvm-options"))) {
            for (Path file : options.filter(p -> p.toString().endsWith(".options")).toList()) {
                Path target = file.getFileName().toString().equals("default.options")
                        ? dist.resolve("config").resolve("jvm.options") : profiles.resolve(file.getFileName());
                Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        javaHome = dir.resolve("jdk");
        Path java = Files.createDirectories(javaHome.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nif [ \"$1\" = -version ]; then echo 'openjdk version \"21.0.5\" "
                + "2024-10-15' >&2; exit 0; fi\nfor a in \"$@\"; do echo \"$a\"; done\n");
        executable(java);
        cgroups = Files.createDirectories(dir.resolve("cgroup"));
    }

    @Test
    void withoutAMemoryLimitNeitherFixesNorPreTouchesHalfTheMachine() throws Exception {
        List<String> options = jvmOptions("g1-small", Map.of());
        assertEquals("-Xmx" + physicalMib() / 2 + "m", heapMax(options), options.toString());
        assertFalse(options.stream().anyMatch(o -> o.startsWith("-Xms")), options.toString());
        assertFalse(options.contains("-XX:+AlwaysPreTouch"), options.toString());
        for (String profile : List.of("g1-large", "zgc")) {
            List<String> other = jvmOptions(profile, Map.of());
            assertFalse(other.contains("-XX:+AlwaysPreTouch") || other.stream().anyMatch(o -> o.startsWith("-Xms")),
                    profile + ": " + other);
        }
    }

    @Test
    void runSaysThatNoLimitWasFoundAndHowToSetOne() throws Exception {
        Result run = launcher(Map.of("GATEWAY_JVM_PROFILE", "g1-small"), "run", "--config", "gateway.yaml");
        assertEquals(0, run.status(), run.err());
        assertTrue(run.err().contains("no memory limit") && run.err().contains("GATEWAY_HEAP"), run.err());
        assertTrue(run.out().lines().anyMatch("run"::equals), "the fake java ran: " + run.out());
    }

    @Test
    void aContainerLimitGetsTheProfilesFixedPreTouchedHeap() throws Exception {
        Files.writeString(cgroups.resolve("memory.max"), 4 * GIB + "\n");
        List<String> options = jvmOptions("g1-small", Map.of());
        assertTrue(options.containsAll(List.of("-Xms2048m", "-Xmx2048m", "-XX:MaxDirectMemorySize=1228m",
                "-XX:+AlwaysPreTouch")), options.toString());
        Result run = launcher(Map.of("GATEWAY_JVM_PROFILE", "g1-small"), "run", "--config", "gateway.yaml");
        assertFalse(run.err().contains("no memory limit"), run.err());
    }

    @Test
    void aSystemdUnitsMemoryMaxInItsOwnCgroupIsTheLimit() throws Exception {
        String own = ownCgroup();
        Path unit = Files.createDirectories(cgroups.resolve(own.substring(1)));
        // the unit's limit below a parent without one: the smallest on the way up counts
        Files.writeString(unit.resolve("memory.max"), 2 * GIB + "\n");
        if (!unit.equals(cgroups)) {
            Files.writeString(cgroups.resolve("memory.max"), "max\n");
        }
        List<String> options = jvmOptions("g1-small", Map.of());
        assertTrue(options.containsAll(List.of("-Xms1024m", "-Xmx1024m", "-XX:+AlwaysPreTouch")), options.toString());
    }

    @Test
    void anExplicitHeapIsMemoryMeantForTheNodeAndStaysFixedAndPreTouched() throws Exception {
        List<String> options = jvmOptions("g1-small", Map.of("GATEWAY_HEAP", "3g"));
        assertTrue(options.containsAll(List.of("-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch")), options.toString());
    }

    @Test
    void theDensityProfileKeepsItsSmallStartWithOrWithoutALimit() throws Exception {
        List<String> options = jvmOptions("density", Map.of());
        assertTrue(options.contains("-Xms64m"), options.toString());
        assertFalse(options.contains("-XX:+AlwaysPreTouch"), options.toString());
    }

    private static String heapMax(List<String> options) {
        return options.stream().filter(o -> o.startsWith("-Xmx")).findFirst().orElse("none");
    }

    /** This process's cgroup v2 path ("0::/..."), which the launcher's shell shares; "/" without one. */
    private static String ownCgroup() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/cgroup"), StandardCharsets.UTF_8).stream()
                .filter(l -> l.startsWith("0::")).map(l -> l.substring(3)).findFirst().orElse("/");
    }

    private static long physicalMib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"), StandardCharsets.UTF_8)) {
            if (line.startsWith("MemTotal:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
            }
        }
        throw new IllegalStateException("no MemTotal in /proc/meminfo");
    }

    private List<String> jvmOptions(String profile, Map<String, String> env) throws Exception {
        Result r = launcher(env, "jvm-options", profile, "--connections", "19000");
        assertEquals(0, r.status(), r.err());
        return r.out().lines().filter(l -> !l.isBlank()).toList();
    }

    private record Result(int status, String out, String err) {
    }

    private Result launcher(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(dist.resolve("bin").resolve("gateway").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> e = pb.environment();
        for (String name : List.copyOf(e.keySet())) {
            if (name.startsWith("GATEWAY_") || name.startsWith("MQTTGW_") || name.equals("JAVA_OPTS")) {
                e.remove(name);
            }
        }
        e.put("JAVA_HOME", javaHome.toString());
        e.put("GATEWAY_LOG_DIR", dir.resolve("logs").toString());
        e.put("GATEWAY_CGROUP_ROOT", cgroups.toString());
        e.putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher did not end");
        return new Result(p.exitValue(), out, err);
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
