package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.testkit.AdminCalls.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator API (list, show, kick clients; show sessions) over real sockets with the JDK's HTTP client, against a
 * gateway with real devices over mutual TLS: first as an attacker (no token, a wrong one, the read-only port, hostile
 * ids, limits and cursors), then as an operator.
 */
class OperatorApiIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;


    private static HttpResponse<String> get(int port, String pathAndQuery) throws IOException, InterruptedException {
        return call("GET", port, pathAndQuery, TestGateway.OPERATOR_TOKEN);
    }

    private static JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    private static void assertRefused(int status, HttpResponse<String> r, String reasonPart) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        String error = json(r).path("error").asText();
        assertTrue(error.contains(reasonPart), "reason '" + error + "' should name '" + reasonPart + "'");
    }

    private static Mqtt3AsyncClient device(TestPki pki, Gateway gateway, String id) {
        Mqtt3AsyncClient d = TestDevices.mutualTls(pki, gateway.tlsPort(), id).buildAsync();
        d.connect().join();
        return d;
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

    @Test
    void refusesClientOperationsWithoutTheRightTokenOrWithHostileInput() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            Mqtt3AsyncClient victim = device(pki, gateway, "dev-victim");
            int admin = gateway.adminPort();
            for (String[] attempt : new String[][] {{"GET", "/clients"}, {"GET", "/clients/dev-victim"},
                    {"DELETE", "/clients/dev-victim"}, {"GET", "/sessions/dev-victim"}}) {
                HttpResponse<String> none = call(attempt[0], admin, attempt[1], null);
                assertRefused(401, none, "");
                assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
                assertRefused(401, call(attempt[0], admin, attempt[1], "wrong-0123456789abcdef0123456789abcdef"),
                        "invalid");
                assertRefused(401, call(attempt[0], admin, attempt[1], TestGateway.OPERATOR_TOKEN + "x"), "");
            }
            String token = TestGateway.OPERATOR_TOKEN;
            // ids no device can have: a level separator smuggled as %2F, wildcards, a '$' prefix, control
            // characters, broken percent-encoding, an id past mqtt.max-client-id-length
            assertRefused(400, call("DELETE", admin, "/clients/dev-victim%2F..", token), "level_separator");
            assertRefused(400, call("DELETE", admin, "/clients/..%2Fdev-victim", token), "level_separator");
            assertRefused(400, call("DELETE", admin, "/clients/%2B", token), "wildcard");
            assertRefused(400, call("DELETE", admin, "/clients/dev%23", token), "wildcard");
            assertRefused(400, call("GET", admin, "/clients/%24SYS", token), "dollar_prefix");
            assertRefused(400, call("GET", admin, "/sessions/dev%00victim", token), "control_character");
            assertRefused(400, call("GET", admin, "/clients/dev%E0%A4", token), "percent-encoded UTF-8");
            assertRefused(400, call("GET", admin, "/clients/" + "d".repeat(129), token), "max-client-id-length");
            assertRefused(400, call("GET", admin, "/clients/" + "d".repeat(20_000), token), "");
            assertRefused(400, call("GET", admin, "/clients/", token), "one path segment");
            // paging input
            for (String limit : new String[] {"0", "1001", "-1", "ten", "99999999999"}) {
                assertRefused(400, get(admin, "/clients?limit=" + limit), "limit must be 1 to 1000");
            }
            for (String cursor : new String[] {"!!!", "ZGV2LXZpY3RpbQ%3D%3D%3D", "JFNZUw", "Lw", "_w"}) {
                assertRefused(400, get(admin, "/clients?cursor=" + cursor), "cursor");
            }
            // a cursor of another prefix is not a way around the prefix
            assertRefused(400, get(admin, "/clients?prefix=abc&cursor=ZGV2LXZpY3RpbQ"), "cursor");
            assertRefused(400, get(admin, "/clients?prefix=dev%2F"), "level_separator");
            assertRefused(405, call("POST", admin, "/clients", token), "GET");
            assertRefused(405, call("PUT", admin, "/clients/dev-victim", token), "GET or DELETE");
            assertEquals(MqttClientState.CONNECTED, victim.getState(), "nothing above closed the device");
            assertEquals(0, gateway.metrics().disconnects(DisconnectReason.ADMINISTRATIVE));
            victim.disconnect().join();
        }
    }

    @Test
    void refusesClientOperationsOnTheReadOnlyListenerWhenOperationsHaveTheirOwn() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("admin.operations.bind", "127.0.0.1").with("admin.operations.port", "0").start()) {
            Mqtt3AsyncClient victim = device(pki, gateway, "dev-victim");
            assertRefused(404, call("DELETE", gateway.adminPort(), "/clients/dev-victim", TestGateway.OPERATOR_TOKEN),
                    "operations listener");
            assertRefused(404, call("GET", gateway.adminPort(), "/clients", TestGateway.OPERATOR_TOKEN),
                    "operations listener");
            assertEquals(MqttClientState.CONNECTED, victim.getState());
            HttpResponse<String> there = get(gateway.adminOperationsPort(), "/clients/dev-victim");
            assertEquals(200, there.statusCode(), there.body());
            victim.disconnect().join();
        }
    }

    @Test
    void pagesThroughClientsInIdOrderWithAPrefixAndAnOpaqueCursor() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            List<Mqtt3AsyncClient> devices = new ArrayList<>();
            for (String id : new String[] {"pump-3", "dev-b", "pump-1", "dev-a", "pump-2", "pumpkin"}) {
                devices.add(device(pki, gateway, id));
            }
            int admin = gateway.adminPort();
            List<String> seen = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                HttpResponse<String> r = get(admin, "/clients?prefix=pump-&limit=2"
                        + (cursor == null ? "" : "&cursor=" + cursor));
                assertEquals(200, r.statusCode(), r.body());
                JsonNode page = json(r);
                assertEquals("test-node", page.get("node").asText());
                page.get("clients").forEach(c -> seen.add(c.get("clientId").asText()));
                cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
                pages++;
            } while (cursor != null && pages < 10);
            assertEquals(List.of("pump-1", "pump-2", "pump-3"), seen);
            JsonNode all = json(get(admin, "/clients"));
            assertEquals(6, all.get("clients").size());
            assertEquals("dev-a", all.get("clients").get(0).get("clientId").asText());
            assertTrue(all.get("clients").get(0).get("remoteAddress").asText().contains("127.0.0.1"));
            assertEquals("certificate", all.get("clients").get(0).get("proof").asText());
            assertTrue(all.get("nextCursor").isNull());
            assertEquals(0, json(get(admin, "/clients?prefix=nobody")).get("clients").size());
            for (Mqtt3AsyncClient d : devices) {
                d.disconnect().join();
            }
            await("sessions gone", () -> gateway.registry().size() == 0);
            assertEquals(0, json(get(admin, "/clients")).get("clients").size());
        }
    }

    @Test
    void showsAClientAndKicksItWithTheAdministrativeReasonAndItsOperatorInTheEventLog() throws Exception {
        EventLogCapture capture = new EventLogCapture();
        List<String> lines = capture.lines();
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-1").buildAsync();
            device.connectWith().keepAlive(45).cleanSession(false).send().join();
            device.subscribeWith().topicFilter("devices/dev-1/commands").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> { }).send().join();
            int admin = gateway.adminPort();

            HttpResponse<String> shown = get(admin, "/clients/dev-1");
            assertEquals(200, shown.statusCode(), shown.body());
            JsonNode c = json(shown);
            assertEquals("dev-1", c.get("clientId").asText());
            assertEquals("test-node", c.get("node").asText());
            assertTrue(c.get("local").asBoolean());
            assertEquals("tls", c.get("listener").asText());
            assertEquals("MQTT 3.1.1", c.get("protocol").asText());
            assertEquals(45, c.get("keepAliveSeconds").asInt());
            assertEquals("dev-1", c.get("certificate").get("identity").asText());
            assertEquals(64, c.get("certificate").get("sha256").asText().length());
            assertTrue(c.get("certificate").get("notAfter").asText().endsWith("Z"));
            assertTrue(c.get("persistentSession").asBoolean());
            assertEquals("devices/dev-1/commands", c.get("subscriptions").get(0).get("filter").asText());
            assertEquals(1, c.get("subscriptions").get(0).get("qos").asInt());
            assertEquals(0, c.get("inflight").get("downlink").asInt());
            assertRefused(404, get(admin, "/clients/dev-2"), "not connected");

            JsonNode session = json(get(admin, "/sessions/dev-1"));
            assertTrue(session.get("connected").asBoolean(), session.toString());
            assertTrue(session.get("expiresAt").isNull());
            assertEquals("certificate", session.get("proof").asText());

            // a plain kick keeps the persistent session, waiting for the device
            HttpResponse<String> kicked = call("DELETE", admin, "/clients/dev-1", TestGateway.OPERATOR_TOKEN);
            assertEquals(200, kicked.statusCode(), kicked.body());
            assertFalse(json(kicked).get("sessionDiscarded").asBoolean());
            await("device closed", () -> device.getState() != MqttClientState.CONNECTED);
            // the device can see the close before the gateway's event loop has counted it
            await("kick counted", () -> gateway.metrics().disconnects(DisconnectReason.ADMINISTRATIVE) == 1);
            await("session stored, disconnected", () -> {
                try {
                    JsonNode s = json(get(admin, "/sessions/dev-1"));
                    return !s.get("connected").asBoolean() && !s.get("expiresAt").isNull();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertRefused(404, call("DELETE", admin, "/clients/dev-1", TestGateway.OPERATOR_TOKEN), "not connected");

            // back, then kicked with its session discarded
            Mqtt3AsyncClient again = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-1").buildAsync();
            assertTrue(again.connectWith().cleanSession(false).send().join().isSessionPresent());
            HttpResponse<String> discarded = call("DELETE", admin, "/clients/dev-1?discard-session=true",
                    TestGateway.OPERATOR_TOKEN);
            assertEquals(200, discarded.statusCode(), discarded.body());
            assertTrue(json(discarded).get("sessionDiscarded").asBoolean());
            await("device closed again", () -> again.getState() != MqttClientState.CONNECTED);
            await("session gone", () -> {
                try {
                    return get(admin, "/sessions/dev-1").statusCode() == 404;
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await("second kick counted", () -> gateway.metrics().disconnects(DisconnectReason.ADMINISTRATIVE) == 2);
            await("kick lines", () -> lines.stream().filter(l -> l.startsWith("operation")
                    && l.contains("what=DELETE /clients/dev-1") && l.contains("outcome=kicked")).count() == 2);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("operation operator=token:test-operator")
                    && l.contains("outcome=kicked, session discarded")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("disconnected client=dev-1")
                    && l.endsWith("reason=administrative")), lines.toString());
        } finally {
            capture.close();
        }
    }
}
