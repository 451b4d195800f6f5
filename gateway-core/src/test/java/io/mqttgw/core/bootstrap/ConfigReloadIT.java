package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.micrometer.core.instrument.Counter;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Config reload on a real gateway: the file is changed, then {@code POST /config/reload} (or SIGHUP) applies the new
 * ACL to the next device that connects; a file that would not start the node is refused with startup's one-line
 * error and the running ACL stays; keys that need a restart are named.
 */
class ConfigReloadIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FLEET = "fleet/announcements";

    @TempDir
    Path dir;

    private static HttpResponse<String> reload(Gateway gateway, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort()
                + "/config/reload")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Path write(Path file, String subscribe, String extra) throws Exception {
        return Files.writeString(file, "acl:\n  subscribe: \"" + subscribe + "\"\n" + extra);
    }

    /** Whether a new device may subscribe to the fleet topic (SUBACK granted rather than 0x80). */
    private static boolean newDeviceMaySubscribeToFleet(TestPki pki, Gateway gateway, String id) {
        Mqtt3AsyncClient d = TestDevices.mutualTls(pki, gateway.tlsPort(), id).buildAsync();
        d.connect().join();
        try {
            return d.subscribeWith().topicFilter(FLEET).qos(MqttQos.AT_LEAST_ONCE).callback(p -> { }).send()
                    .handle((ack, error) -> error == null && ack.getReturnCodes().stream().noneMatch(
                            c -> c.isError())).join();
        } finally {
            d.disconnect().join();
        }
    }

    private static double reloads(Gateway gateway, String outcome) {
        Counter c = gateway.metrics().registry().find("mqttgw.config.reloads").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void appliesANewAclToNewConnectionsRefusesAnInvalidFileAndNamesRestartKeys() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path file = write(dir.resolve("gateway.yaml"), "devices/{client-id}/#", "");
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).startWithFile(file)) {
            assertEquals(false, newDeviceMaySubscribeToFleet(pki, gateway, "dev-1"));
            assertEquals(401, reload(gateway, null).statusCode(), "reload is an operation: a token is needed");

            write(file, "devices/{client-id}/#,fleet/#", "");
            HttpResponse<String> applied = reload(gateway, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, applied.statusCode(), applied.body());
            JsonNode a = JSON.readTree(applied.body());
            assertEquals("applied", a.get("outcome").asText());
            assertEquals(List.of("acl.subscribe"), List.of(a.get("applied").get(0).asText()));
            assertEquals(0, a.get("restartRequired").size(), applied.body());
            assertTrue(newDeviceMaySubscribeToFleet(pki, gateway, "dev-2"), "the new ACL serves the next CONNECT");

            // invalid: the running configuration stays, the answer is startup's one line
            write(file, "devices/{client-id}/#", "overload:\n  heap-after-gc: 500\n");
            HttpResponse<String> refused = reload(gateway, TestGateway.OPERATOR_TOKEN);
            assertEquals(422, refused.statusCode(), refused.body());
            JsonNode r = JSON.readTree(refused.body());
            assertEquals("refused", r.get("outcome").asText());
            assertTrue(r.get("error").asText().startsWith("configuration error: overload.heap-after-gc"),
                    r.get("error").asText());
            assertTrue(newDeviceMaySubscribeToFleet(pki, gateway, "dev-3"), "the ACL before the bad file stays");
            assertEquals(1, reloads(gateway, "refused"));

            // unchanged file: nothing applied, nothing named (every value compares equal to itself)
            write(file, "devices/{client-id}/#,fleet/#", "");
            JsonNode same = JSON.readTree(reload(gateway, TestGateway.OPERATOR_TOKEN).body());
            assertEquals("unchanged", same.get("outcome").asText(), same.toString());
            assertEquals(0, same.get("restartRequired").size(), same.toString());

            // a key that needs a restart is named, not applied
            write(file, "devices/{client-id}/#,fleet/#", "mqtt:\n  max-packet-size: 1000\n");
            JsonNode restart = JSON.readTree(reload(gateway, TestGateway.OPERATOR_TOKEN).body());
            assertEquals("unchanged", restart.get("outcome").asText());
            assertEquals("mqtt.max-packet-size", restart.get("restartRequired").get(0).asText());
            assertEquals(1, reloads(gateway, "applied"));
        }
    }

    /**
     * The file as the kubelet mounts a ConfigMap key: {@code gateway.yaml -> ..data/gateway.yaml}, {@code ..data} a
     * link to a timestamped directory; an update writes a new directory and swaps {@code ..data} in one rename.
     */
    private static void configMapUpdate(Path mount, String version, String content) throws Exception {
        Path data = Files.createDirectories(mount.resolve("..2026_11_28_" + version));
        Files.writeString(data.resolve("gateway.yaml"), content);
        Path next = Files.createSymbolicLink(mount.resolve("..data_tmp"), data.getFileName());
        Files.move(next, mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        if (!Files.exists(mount.resolve("gateway.yaml"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(mount.resolve("gateway.yaml"), Path.of("..data/gateway.yaml"));
        }
    }

    private static void awaitReloads(Gateway gateway, String outcome, double count) throws InterruptedException {
        // polls every second; the timeout leaves room for a loaded machine
        long deadline = System.currentTimeMillis() + 30_000;
        while (reloads(gateway, outcome) < count && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(count, reloads(gateway, outcome), outcome);
    }

    @Test
    void reloadsAConfigMapMountedFileWhenTheKubeletSwapsItWithoutARestart() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path mount = Files.createDirectories(dir.resolve("mount"));
        String watch = "config:\n  watch-interval: 1s\n";
        configMapUpdate(mount, "1", "acl:\n  subscribe: \"devices/{client-id}/#\"\n" + watch);
        try (Gateway gateway = TestGateway.tls(pki, dir).startWithFile(mount.resolve("gateway.yaml"))) {
            assertEquals(false, newDeviceMaySubscribeToFleet(pki, gateway, "dev-5"));

            configMapUpdate(mount, "2", "acl:\n  subscribe: \"devices/{client-id}/#,fleet/#\"\n" + watch);
            awaitReloads(gateway, "applied", 1);
            assertTrue(newDeviceMaySubscribeToFleet(pki, gateway, "dev-6"), "the new ACL serves the next CONNECT");

            // a bad update is refused once and not again at every poll; the running ACL stays
            configMapUpdate(mount, "3", "acl:\n  subscribe: \"devices/{client-id}/#\"\n" + watch
                    + "overload:\n  heap-after-gc: 500\n");
            awaitReloads(gateway, "refused", 1);
            Thread.sleep(3_000);
            assertEquals(1, reloads(gateway, "refused"), "the same refused content is not reloaded again");
            assertTrue(newDeviceMaySubscribeToFleet(pki, gateway, "dev-7"), "the ACL before the bad file stays");
            assertEquals(1, reloads(gateway, "applied"));
        }
    }

    /** Bit 0 of the ignored-signals mask in /proc/self/status is SIGHUP. */
    private static boolean sighupIgnoredAtStart() throws java.io.IOException {
        Path status = Path.of("/proc/self/status");
        if (!java.nio.file.Files.exists(status)) {
            return false;
        }
        for (String line : java.nio.file.Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 1) != 0;
            }
        }
        return false;
    }

    @Test
    void sighupReloadsTheFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path file = write(dir.resolve("gateway.yaml"), "devices/{client-id}/#", "");
        // a build started under nohup passes SIGHUP on ignored, and the JVM keeps it so (the gateway says so)
        assumeFalse(sighupIgnoredAtStart(), "this test JVM was started with SIGHUP ignored (nohup)");
        try (Gateway gateway = TestGateway.tls(pki, dir).startWithFile(file)) {
            assertTrue(GatewayMain.reloadOnSighup(gateway), "this JVM offers SIGHUP");
            write(file, "devices/{client-id}/#,fleet/#", "");
            Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
            assertTrue(kill.waitFor(15, TimeUnit.SECONDS) && kill.exitValue() == 0);
            long deadline = System.currentTimeMillis() + 15_000;
            while (reloads(gateway, "applied") < 1 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, reloads(gateway, "applied"));
            assertTrue(newDeviceMaySubscribeToFleet(pki, gateway, "dev-4"));
        }
    }
}
