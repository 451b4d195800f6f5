package io.mqttgw.deploy.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.layout.template.json.util.JsonReader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The image tarball of {@code ./mvnw -Pimage package} (Jib, target/mqtt-gateway-image.tar): its configuration
 * starts the launcher as a non-root user, exposes the MQTT and admin ports, keeps data, logs and /tmp on volumes
 * (a read-only root file system works) and carries the OCI labels; the distribution is in its last layer with an
 * executable launcher, and nowhere else (no /app copy); its tag is the one the manifests run. Skipped when the
 * image was not built (the image profile needs a base image tarball).
 */
class ContainerImageIT {
    private static final Path IMAGE = Path.of("target/mqtt-gateway-image.tar");

    private static String tar(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("tar"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", command));
        return out;
    }

    @Test
    void startsTheLauncherAsANonRootUserWithDataAndLogsOnVolumes() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(IMAGE), "no image built (./mvnw -Pimage package)");
        List<?> manifest = (List<?>) JsonReader.read(tar("-xOf", IMAGE.toString(), "manifest.json"));
        Map<?, ?> entry = (Map<?, ?>) manifest.get(0);
        Map<?, ?> image = (Map<?, ?>) JsonReader.read(tar("-xOf", IMAGE.toString(), (String) entry.get("Config")));
        Map<?, ?> config = (Map<?, ?>) image.get("config");
        assertEquals(List.of("/opt/mqtt-gateway/bin/gateway"), config.get("Entrypoint"));
        assertEquals(List.of("run", "--config", "/etc/mqtt-gateway/gateway.yaml"), config.get("Cmd"));
        assertEquals("10001:10001", config.get("User"));
        assertTrue(((Map<?, ?>) config.get("ExposedPorts")).keySet().containsAll(List.of("8883/tcp", "9090/tcp")));
        assertTrue(((Map<?, ?>) config.get("Volumes")).keySet().containsAll(List.of("/var/lib/mqtt-gateway",
                "/var/log/mqtt-gateway", "/tmp")));
        assertEquals("mqtt-gateway", ((Map<?, ?>) config.get("Labels")).get("org.opencontainers.image.title"));
        assertTrue(((List<?>) config.get("Env")).contains("GATEWAY_LOG_DIR=/var/log/mqtt-gateway"));

        assertEquals(List.of("mqtt-gateway:" + ImageTagTest.imageTag()), entry.get("RepoTags"),
                "the tag the Kubernetes manifests run");

        List<?> layers = (List<?>) entry.get("Layers");
        // the application once: Jib's own /app copy of the jars is filtered out, /opt/mqtt-gateway runs
        for (Object name : layers) {
            Path each = Files.createTempFile("layer", ".tar.gz");
            try {
                ProcessBuilder pb = new ProcessBuilder("tar", "-xOf", IMAGE.toString(), (String) name);
                pb.redirectOutput(each.toFile());
                assertEquals(0, pb.start().waitFor());
                String listing = tar("-tzf", each.toString());
                assertTrue(listing.lines().noneMatch(l -> l.startsWith("app/") || l.startsWith("./app/")),
                        name + " holds a second copy of the application under /app:\n" + listing);
            } finally {
                Files.delete(each);
            }
        }
        String last = (String) layers.get(layers.size() - 1);
        Path layer = Files.createTempFile("layer", ".tar.gz");
        try {
            ProcessBuilder pb = new ProcessBuilder("tar", "-xOf", IMAGE.toString(), last);
            pb.redirectOutput(layer.toFile());
            assertEquals(0, pb.start().waitFor());
            String listing = tar("-tvzf", layer.toString());
            assertTrue(listing.lines().anyMatch(l -> l.startsWith("-rwxr-xr-x") && l.endsWith(
                    "opt/mqtt-gateway/bin/gateway")), listing);
            assertTrue(listing.contains("opt/mqtt-gateway/config/jvm.options"), listing);
        } finally {
            Files.delete(layer);
        }
    }
}
