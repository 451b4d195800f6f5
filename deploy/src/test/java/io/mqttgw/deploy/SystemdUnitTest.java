package io.mqttgw.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped systemd unit is sandboxed: its directives are checked here everywhere, and where systemd-analyze is
 * installed, {@code systemd-analyze verify} must accept it without a single remark and {@code systemd-analyze
 * security --offline=true} must rate its exposure below 5 (shown on a scale to 10, where 10 is "UNSAFE"). The
 * {@code --threshold} option counts on systemd's internal scale to 100 (its default is 100), so "below 5" is
 * {@code --threshold=49}: the command fails for an exposure above 4.9.
 */
class SystemdUnitTest {
    private static final Path UNIT = Path.of("systemd/mqtt-gateway.service");
    private static final Path LAUNCHER = Path.of("src/main/dist/bin/gateway");
    private static final String INSTALL_DIR = "/opt/mqtt-gateway/";
    private static final Pattern EXPOSURE = Pattern.compile("Overall exposure level for \\S+: (\\d+(?:\\.\\d+)?)");

    @TempDir
    Path dir;

    @Test
    void dropsEveryCapabilityAndPrivilegeAndWritesOnlyItsOwnDirectories() throws IOException {
        List<String> lines = Files.readAllLines(UNIT);
        for (String directive : List.of("CapabilityBoundingSet=", "AmbientCapabilities=", "NoNewPrivileges=yes",
                "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes",
                "ReadWritePaths=/var/lib/mqtt-gateway /var/log/mqtt-gateway", "SystemCallFilter=@system-service",
                "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallArchitectures=native")) {
            assertTrue(lines.contains(directive), UNIT + " lacks " + directive);
        }
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("MemoryDenyWriteExecute=")),
                "the JVM's JIT writes code it then runs: MemoryDenyWriteExecute stops it");
        assertTrue(lines.contains("Environment=GATEWAY_LOG_DIR=/var/log/mqtt-gateway"), "logs go where writes "
                + "are allowed");
    }

    @Test
    void systemdAcceptsTheUnitWithoutARemark() throws Exception {
        Path analyze = systemdAnalyze();
        // verify also checks that ExecStart's program exists and is executable; on a build machine nothing is
        // installed under /opt/mqtt-gateway, so a copy of the unit points at a copy of the launcher instead
        Path bin = Files.createDirectories(dir.resolve("opt/mqtt-gateway/bin"));
        Files.copy(LAUNCHER, bin.resolve("gateway"), StandardCopyOption.COPY_ATTRIBUTES);
        assertTrue(bin.resolve("gateway").toFile().setExecutable(true));
        Path unit = dir.resolve("mqtt-gateway.service");
        String text = Files.readString(UNIT);
        assertTrue(text.contains("ExecStart=" + INSTALL_DIR + "bin/gateway "));
        Files.writeString(unit, text.replace(INSTALL_DIR, dir.resolve("opt/mqtt-gateway") + "/"));
        Result r = run(analyze.toString(), "verify", unit.toString());
        assertEquals(0, r.exit, r.output);
        // an unknown directive or a bad value is only a remark with exit status 0: any output fails the test
        assertEquals("", r.output.strip(), "systemd-analyze verify remarks");
    }

    @Test
    void systemdRatesItsExposureBelowFive() throws Exception {
        Path analyze = systemdAnalyze();
        Result r = run(analyze.toString(), "security", "--offline=true", "--threshold=49", UNIT.toString());
        Matcher m = EXPOSURE.matcher(r.output);
        assertTrue(m.find(), "no overall exposure level in:\n" + r.output);
        double exposure = Double.parseDouble(m.group(1));
        assertTrue(exposure < 5, "exposure " + exposure + ":\n" + r.output);
        assertEquals(0, r.exit, "--threshold=49 failed:\n" + r.output);
    }

    private static Path systemdAnalyze() {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/bin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "systemd-analyze"))) {
                return Path.of(d, "systemd-analyze");
            }
        }
        Assumptions.abort("systemd-analyze is not installed (Debian package systemd): the unit's verify and "
                + "security checks are skipped on this machine");
        throw new AssertionError("unreachable");
    }

    private record Result(int exit, String output) {
    }

    private static Result run(String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " did not end");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
