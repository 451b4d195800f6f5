package io.mqttgw.deploy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Debian package the build writes (target/mqtt-gateway_*_all.deb, jdeb), read back with dpkg-deb: where its files
 * go, its conffiles, its control fields, and what its maintainer scripts do (run against recording stand-ins for
 * adduser, chown and systemctl, so the machine's users are untouched). Where dpkg exists the package is also
 * unpacked into a throwaway root with {@code dpkg --root}. Skipped where dpkg-deb is not installed.
 */
class DebianPackageIT {
    @TempDir
    Path dir;

    static Path deb() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            List<Path> debs = files.filter(f -> f.getFileName().toString().matches("mqtt-gateway_.*_all\\.deb"))
                    .toList();
            assertEquals(1, debs.size(), "one package in target/: " + debs);
            return debs.get(0);
        }
    }

    static String run(Path cwd, List<String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        for (String e : env) {
            String[] kv = e.split("=", 2);
            pb.environment().put(kv[0], kv[1]);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }

    static void assumeTool(String tool) {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin", tool)), tool + " is not installed");
    }

    @Test
    void installsTheDistributionUnderOptConfigInEtcAndTheUnitForSystemd() throws Exception {
        assumeTool("dpkg-deb");
        String contents = run(dir, List.of(), "dpkg-deb", "-c", deb().toAbsolutePath().toString());
        for (String entry : List.of("./opt/mqtt-gateway/bin/gateway", "./etc/mqtt-gateway/gateway.yaml",
                "./etc/mqtt-gateway/log4j2.xml", "./etc/mqtt-gateway/jvm.options",
                "./etc/mqtt-gateway/jvm-profiles/density.options", "./lib/systemd/system/mqtt-gateway.service",
                "./var/lib/mqtt-gateway/", "./var/log/mqtt-gateway/")) {
            assertTrue(contents.contains(entry), entry + " not in the package:\n" + contents);
        }
        assertTrue(contents.lines().anyMatch(l -> l.startsWith("-rwxr-xr-x root/root") && l.endsWith(
                "./opt/mqtt-gateway/bin/gateway")), "the launcher is executable, owned by root");
        assertTrue(contents.lines().anyMatch(l -> l.contains("./opt/mqtt-gateway/lib/gateway-core-")),
                "the gateway's jars are in lib/");
        assertTrue(contents.contains("./opt/mqtt-gateway/config -> /etc/mqtt-gateway"),
                "the launcher finds its config/ in /etc");
    }

    @Test
    void marksTheConfigurationAsConffilesAndNamesItsScriptsAndDependencies() throws Exception {
        assumeTool("dpkg-deb");
        Path control = dir.resolve("control");
        run(dir, List.of(), "dpkg-deb", "-e", deb().toAbsolutePath().toString(), control.toString());
        List<String> conffiles = Files.readAllLines(control.resolve("conffiles"));
        assertTrue(conffiles.contains("/etc/mqtt-gateway/gateway.yaml"), conffiles.toString());
        assertTrue(conffiles.stream().allMatch(c -> c.startsWith("/etc/mqtt-gateway/")), conffiles.toString());
        String info = run(dir, List.of(), "dpkg-deb", "-I", deb().toAbsolutePath().toString());
        assertTrue(info.contains("Package: mqtt-gateway"), info);
        assertTrue(info.contains("Architecture: all"), info);
        assertTrue(info.contains("Depends: adduser, default-jre-headless"), info);
        for (String script : List.of("postinst", "prerm", "postrm")) {
            assertTrue(Files.isExecutable(control.resolve(script)), script + " is not executable");
            run(dir, List.of(), "sh", "-n", control.resolve(script).toString());
        }
    }

    @Test
    void postinstCreatesTheSystemUserOnceAndHandsItItsDirectories() throws Exception {
        assumeTool("dpkg-deb");
        Path control = dir.resolve("control");
        run(dir, List.of(), "dpkg-deb", "-e", deb().toAbsolutePath().toString(), control.toString());
        Path log = dir.resolve("calls.log");
        Path stubs = Files.createDirectories(dir.resolve("stubs"));
        // getent answers "absent" until adduser ran, as on a fresh machine; the rest only record their arguments
        Path db = dir.resolve("users");
        stub(stubs, "getent", "grep -qx \"$1:$2\" " + db + " 2>/dev/null");
        stub(stubs, "addgroup", "echo \"addgroup $*\" >> " + log + "; for a; do last=$a; done; echo \"group:$last\" >> "
                + db);
        stub(stubs, "adduser", "echo \"adduser $*\" >> " + log + "; for a; do last=$a; done; echo \"passwd:$last\" >> "
                + db);
        for (String tool : List.of("mkdir", "chown", "chmod", "systemctl")) {
            stub(stubs, tool, "echo \"" + tool + " $*\" >> " + log);
        }
        List<String> env = List.of("PATH=" + stubs + ":/usr/bin:/bin");
        run(dir, env, "sh", control.resolve("postinst").toString(), "configure");
        String first = Files.readString(log);
        assertTrue(first.contains("addgroup --system --quiet mqtt-gateway"), first);
        assertTrue(first.contains("adduser --system --quiet --ingroup mqtt-gateway --home /var/lib/mqtt-gateway"),
                first);
        assertTrue(first.contains("chown mqtt-gateway:mqtt-gateway /var/lib/mqtt-gateway /var/log/mqtt-gateway"),
                first);
        assertTrue(first.contains("chown root:mqtt-gateway /etc/mqtt-gateway"), first);

        Files.delete(log);
        run(dir, env, "sh", control.resolve("postinst").toString(), "configure");
        String again = Files.readString(log);
        assertFalse(again.contains("adduser") || again.contains("addgroup"), "an upgrade makes no second user: "
                + again);

        Files.delete(log);
        run(dir, env, "sh", control.resolve("postinst").toString(), "abort-upgrade");
        assertFalse(Files.exists(log), "only configure changes the system");
    }

    @Test
    void unpacksIntoAThrowawayRoot() throws Exception {
        assumeTool("dpkg");
        Path root = dir.resolve("root");
        Path admin = Files.createDirectories(root.resolve("var/lib/dpkg"));
        Files.createDirectories(admin.resolve("updates"));
        Files.createDirectories(admin.resolve("info"));
        Files.writeString(admin.resolve("status"), "");
        // unpack only: configure would run postinst in a chroot that has no shell; the scripts are tested above
        run(dir, List.of(), "dpkg", "--root=" + root, "--admindir=" + admin, "--force-depends", "--force-not-root",
                "--log=/dev/null", "--unpack", deb().toAbsolutePath().toString());
        assertTrue(Files.isExecutable(root.resolve("opt/mqtt-gateway/bin/gateway")));
        assertTrue(Files.isSymbolicLink(root.resolve("opt/mqtt-gateway/config")));
        // a conffile waits as .dpkg-new until configure decides between the package's and the admin's version
        assertTrue(Files.isRegularFile(root.resolve("etc/mqtt-gateway/gateway.yaml.dpkg-new")));
        assertTrue(Files.isRegularFile(root.resolve("lib/systemd/system/mqtt-gateway.service")));
        String status = run(dir, List.of(), "dpkg", "--root=" + root, "--admindir=" + admin, "-s", "mqtt-gateway");
        assertTrue(status.contains("Status: install ok unpacked"), status);
    }

    private static void stub(Path dir, String name, String body) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

}
