package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.micrometer.core.instrument.Counter;
import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin plane as a stranger on the platform network tries it: operations without, with a wrong and with a
 * right credential (bearer token, operator mutual TLS), on the wrong listener, with hostile input; over real
 * sockets with the JDK's HTTP client, and a real device over mutual TLS that must receive only what an operator
 * sent.
 */
class AdminOperationsAttackIT {
    private static final String SECOND_TOKEN = "rotated-in-fedcba9876543210fedcba9876543210";
    private static final String COMMAND_TOPIC = "devices/dev-victim/commands";

    @TempDir
    Path dir;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private static HttpResponse<String> post(HttpClient client, String scheme, int port, String pathAndQuery,
                                             String token, String body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(int port, String pathAndQuery, String token, String body)
            throws IOException, InterruptedException {
        return post(HTTP, "http", port, pathAndQuery, token, body);
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A device subscribed to its command topic, collecting the payloads it receives. */
    private static Mqtt3AsyncClient victim(TestPki pki, Gateway gateway, List<String> received) {
        Mqtt3AsyncClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-victim").buildAsync();
        device.connect().join();
        device.subscribeWith().topicFilter(COMMAND_TOPIC).qos(MqttQos.AT_LEAST_ONCE)
                .callback(p -> received.add(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)))
                .send().join();
        return device;
    }

    private static double count(Gateway gateway, String endpoint, String result) {
        Counter c = gateway.metrics().registry().find("mqttgw.admin.requests").tag("endpoint", endpoint)
                .tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    private static double tlsRefusals(Gateway gateway) {
        var counter = gateway.metrics().registry().find("mqttgw.admin.connections.closed")
                .tag("reason", "tls_handshake").counter();
        return counter == null ? 0 : counter.count();
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static void assertUnauthorized(HttpResponse<String> r) {
        assertEquals(401, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"), r.headers().toString());
        assertTrue(r.body().startsWith("{\"error\":"), r.body());
    }

    @Test
    void refusesOperationsWithoutARightTokenAndDeliversOnlyWhatAnOperatorSent() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            Path tokens = dir.resolve("admin-tokens");
            Files.writeString(tokens, "# two tokens while rolling over\ntest-operator:" + TestGateway.OPERATOR_TOKEN
                    + "\nsecond-operator:" + SECOND_TOKEN + "\n");
            List<String> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = victim(pki, gateway, received);
            String command = "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1";
            int admin = gateway.adminPort();

            assertUnauthorized(post(admin, command, null, "from-nobody"));
            HttpResponse<String> wrong = post(admin, command, "not-a-token-of-this-gateway-0123456789abcdef",
                    "from-a-guess");
            assertUnauthorized(wrong);
            assertTrue(wrong.headers().firstValue("WWW-Authenticate").orElseThrow().contains("invalid_token"));
            assertUnauthorized(post(admin, command, TestGateway.OPERATOR_TOKEN.substring(1), "from-a-prefix"));
            assertEquals(3, count(gateway, "downlink", "unauthorized"));

            // a retained broadcast, the widest command there is, needs a token as much
            assertUnauthorized(post(admin, "/downlink/broadcast?topic=" + COMMAND_TOPIC + "&qos=1&retain=true", null,
                    "retained-by-nobody"));
            assertEquals(0, gateway.metrics().registry().find("mqttgw.downlink.retained").counters().stream()
                    .mapToDouble(Counter::count).sum(), "nothing was retained");

            // new token files are picked up while running (checked at most once a second)
            Thread.sleep(1100);
            HttpResponse<String> right = post(admin, command, TestGateway.OPERATOR_TOKEN, "from-operator");
            assertEquals(200, right.statusCode(), right.body());
            assertEquals("{\"outcome\":\"delivered\"}\n", right.body());
            HttpResponse<String> rotated = post(admin, command, SECOND_TOKEN, "from-second-operator");
            assertEquals("{\"outcome\":\"delivered\"}\n", rotated.body(), "the second token of the file works too");
            await("both commands at the device", () -> received.size() >= 2);
            assertEquals(List.of("from-operator", "from-second-operator"), received,
                    "the device got exactly what operators sent");

            // the old token removed from the file stops working once the change is seen
            Files.writeString(tokens, "second-operator:" + SECOND_TOKEN + "\n");
            Thread.sleep(1100);
            assertUnauthorized(post(admin, command, TestGateway.OPERATOR_TOKEN, "from-a-retired-token"));
            assertEquals(2, received.size());
            device.disconnect().join();
        }
    }

    @Test
    void servesNoOperationsWhenNoCredentialIsConfiguredEvenToACallerWithAToken() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            List<String> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = victim(pki, gateway, received);
            for (String path : List.of("/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1",
                    "/downlink/broadcast?topic=" + COMMAND_TOPIC + "&qos=1&retain=true")) {
                HttpResponse<String> r = post(gateway.adminPort(), path, TestGateway.OPERATOR_TOKEN, "x");
                assertEquals(404, r.statusCode(), r.body());
                assertTrue(r.body().contains("operations endpoints are off"), r.body());
            }
            assertEquals(200, get(gateway.adminPort(), "/metrics").statusCode(), "read-only endpoints stay");
            Thread.sleep(300);
            assertEquals(List.of(), received);
            device.disconnect().join();
        }
    }

    @Test
    void keepsOperationsOffTheReadOnlyListenerWhenTheyHaveTheirOwn() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("admin.operations.bind", "127.0.0.1").with("admin.operations.port", "0").start()) {
            List<String> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = victim(pki, gateway, received);
            String command = "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1";
            assertTrue(gateway.adminOperationsPort() > 0 && gateway.adminOperationsPort() != gateway.adminPort());

            HttpResponse<String> onReadOnly = post(gateway.adminPort(), command, TestGateway.OPERATOR_TOKEN, "no");
            assertEquals(404, onReadOnly.statusCode(), "the right token does not open operations on the health port");
            assertEquals(200, get(gateway.adminPort(), "/health/ready").statusCode());

            // everything on the operations listener is authenticated, the read-only paths too
            assertUnauthorized(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gateway.adminOperationsPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()));
            assertUnauthorized(post(gateway.adminOperationsPort(), command, null, "no"));
            HttpResponse<String> ok = post(gateway.adminOperationsPort(), command, TestGateway.OPERATOR_TOKEN, "yes");
            assertEquals("{\"outcome\":\"delivered\"}\n", ok.body());
            await("the command at the device", () -> received.size() == 1);
            assertEquals(List.of("yes"), received);
            device.disconnect().join();
        }
    }

    @Test
    void acceptsOnlyOperatorCertificatesFromTheAdminCaOnTheOperationsListener() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        TestPki operators = TestPki.create(dir.resolve("operator-pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("admin.operations.port", "0")
                .with("admin.operations.tls.cert-file", operators.certFile().toString())
                .with("admin.operations.tls.key-file", operators.keyFile().toString())
                .with("admin.operations.tls.ca-file", operators.caFile().toString()).start()) {
            List<String> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = victim(pki, gateway, received);
            String command = "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1";
            int port = gateway.adminOperationsPort();

            for (SSLContext stranger : List.of(operators.clientContext(null),
                    // a valid device certificate is not an operator's: another CA
                    operators.clientContext(pki.device("dev-victim")),
                    operators.clientContext(operators.untrustedDevice("operator-1")))) {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(stranger)
                        .connectTimeout(Duration.ofSeconds(10)).build();
                assertThrows(IOException.class, () -> post(client, "https", port, command, null, "no"),
                        "the TLS handshake refuses the caller");
            }
            assertThrows(IOException.class, () -> post(port, command, null, "plain"), "no plain HTTP either");
            // each refusal counted (an HTTP client may retry one), none left as an unhandled pipeline exception
            await("the refused handshakes counted", () -> tlsRefusals(gateway) >= 4);

            HttpClient operator = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .sslContext(operators.clientContext(operators.device("operator-1")))
                    .connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> ok = post(operator, "https", port, command, null, "by-certificate");
            assertEquals(200, ok.statusCode(), ok.body());
            await("the command at the device", () -> received.size() == 1);
            assertEquals(List.of("by-certificate"), received);
            assertEquals(404, post(gateway.adminPort(), command, null, "x").statusCode());
            device.disconnect().join();
        }
    }

    @Test
    void refusesHostileInputWithJsonReasonsAfterAuthentication() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("admin.operations.max-payload", "1KiB").start()) {
            List<String> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = victim(pki, gateway, received);
            int admin = gateway.adminPort();
            String token = TestGateway.OPERATOR_TOKEN;
            for (String bad : List.of(
                    "/downlink?client=dev-victim&topic=devices/%2B/commands&qos=1",
                    "/downlink?client=dev-victim&topic=devices/dev-victim/%23&qos=1",
                    "/downlink/broadcast?topic=devices/%23&qos=1&retain=true",
                    "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=3",
                    "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=one",
                    "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&retain=yes",
                    "/downlink?topic=" + COMMAND_TOPIC + "&qos=1",
                    "/downlink?client=&topic=" + COMMAND_TOPIC + "&qos=1",
                    "/downlink?client=dev-victim&qos=1",
                    "/downlink?client=dev-victim&topic=" + "a/".repeat(600) + "&qos=1")) {
                HttpResponse<String> r = post(admin, bad, token, "bad");
                assertEquals(400, r.statusCode(), bad + " -> " + r.body());
                assertTrue(r.body().startsWith("{\"error\":\""), r.body());
                assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
            }
            HttpResponse<String> big = post(admin, "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1",
                    token, "x".repeat(1025));
            assertEquals(413, big.statusCode(), big.body());
            assertTrue(big.body().contains("admin.operations.max-payload"), big.body());
            HttpResponse<String> get = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin
                    + "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC)).header("Authorization", "Bearer " + token)
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, get.statusCode(), get.body());
            assertEquals(10, count(gateway, "downlink", "invalid") + count(gateway, "broadcast", "invalid"));

            HttpResponse<String> fits = post(admin, "/downlink?client=dev-victim&topic=" + COMMAND_TOPIC + "&qos=1",
                    token, "x".repeat(1024));
            assertEquals("{\"outcome\":\"delivered\"}\n", fits.body(), "a payload at the limit goes");
            await("the command at the device", () -> received.size() == 1);
            device.disconnect().join();
        }
    }

    @Test
    void writesEveryOperationWithItsOperatorToTheEventLogWithoutForgedLines() throws Exception {
        EventLogCapture capture = new EventLogCapture();
        List<String> lines = capture.lines();
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            int admin = gateway.adminPort();
            post(admin, "/downlink?client=dev-x&topic=a&qos=1", "wrong-token-0123456789abcdef0123456789", "x");
            post(admin, "/downlink?client=dev-x%0Aoperation%20operator=root&topic=devices/dev-x/c%0D%0Aforged&qos=1",
                    TestGateway.OPERATOR_TOKEN, "x");
            post(admin, "/downlink?client=dev-x&topic=devices/%23&qos=1", TestGateway.OPERATOR_TOKEN, "x");
            await("three operation lines", () -> lines.stream().filter(l -> l.startsWith("operation")).count() >= 3);
            List<String> ops = lines.stream().filter(l -> l.startsWith("operation")).toList();
            assertTrue(ops.get(0).startsWith("operation refused") && ops.get(0).contains("invalid bearer token"),
                    ops.get(0));
            assertTrue(ops.stream().anyMatch(l -> l.contains("operator=token:test-operator")
                    && l.contains("client=dev-x\\noperation operator=root topic=devices/dev-x/c\\r\\nforged")
                    && l.endsWith("outcome=not_connected")), ops.toString());
            assertTrue(ops.stream().anyMatch(l -> l.contains("operator=token:test-operator")
                    && l.contains("outcome=refused: topic must be a topic name")), ops.toString());
            ops.forEach(l -> assertTrue(l.indexOf('\n') < 0 && l.indexOf('\r') < 0, "one line each: " + l));
        } finally {
            capture.close();
        }
    }
}
