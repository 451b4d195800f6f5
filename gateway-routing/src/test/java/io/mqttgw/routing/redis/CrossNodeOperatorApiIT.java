package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.routing.testkit.RedisNodes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The operator API on two nodes sharing a real redis-server (routes and sessions): asked on the node that does not
 * hold a device, a lookup names the node that does, a downlink is delivered by that node (not queued on the one asked),
 * and the stored session is read from Redis whichever node asks.
 */
class CrossNodeOperatorApiIT extends RedisNodes {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static HttpResponse<String> call(String method, Gateway node, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + path))
                .timeout(Duration.ofSeconds(30)).method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + TestGateway.OPERATOR_TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static TestGateway node(String id) throws Exception {
        Path home = Files.createDirectories(dir.resolve(id));
        return redisNode(id).with("session.provider", "redis")
                .withOperatorToken(home);
    }

    @Test
    void aLookupOnEitherNodeNamesTheNodeThatHoldsTheDevice() throws Exception {
        try (Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-roamer").buildAsync();
            device.connectWith().cleanSession(false).send().join();

            JsonNode onA = JSON.readTree(call("GET", a, "/clients/dev-roamer").body());
            assertTrue(onA.get("local").asBoolean(), onA.toString());
            // the route write is queued and flushed: wait for node B to see it
            long deadline = System.currentTimeMillis() + 15_000;
            HttpResponse<String> onB;
            do {
                onB = call("GET", b, "/clients/dev-roamer");
            } while (onB.statusCode() == 404 && System.currentTimeMillis() < deadline && sleep());
            assertEquals(200, onB.statusCode(), onB.body());
            JsonNode remote = JSON.readTree(onB.body());
            assertFalse(remote.get("local").asBoolean());
            assertEquals("node-a", remote.get("node").asText());
            assertEquals("certificate", remote.get("proof").asText());

            assertEquals(0, JSON.readTree(call("GET", b, "/clients").body()).get("clients").size(),
                    "the list is of node B's own sessions");

            JsonNode session = JSON.readTree(call("GET", b, "/sessions/dev-roamer").body());
            assertTrue(session.get("connected").asBoolean(), session.toString());
            assertEquals(0, session.get("pending").asInt());

            assertEquals(200, call("DELETE", a, "/clients/dev-roamer?discard-session=true").statusCode());
            deadline = System.currentTimeMillis() + 15_000;
            while (call("GET", b, "/sessions/dev-roamer").statusCode() != 404
                    && System.currentTimeMillis() < deadline) {
                sleep();
            }
            assertEquals(404, call("GET", b, "/sessions/dev-roamer").statusCode(), "discarded in Redis");
        }
    }

    @Test
    void aDownlinkSentToTheNodeThatDoesNotHoldTheDeviceIsDeliveredByTheNodeThatDoes() throws Exception {
        try (Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            java.util.List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-online").buildAsync();
            device.connectWith().cleanSession(false).send().join();
            device.subscribeWith().topicFilter("devices/dev-online/cmd")
                    .qos(com.hivemq.client.mqtt.datatypes.MqttQos.AT_LEAST_ONCE)
                    .callback(p -> received.add(new String(p.getPayloadAsBytes(),
                            java.nio.charset.StandardCharsets.UTF_8)))
                    .send().join();
            long deadline = System.currentTimeMillis() + 15_000;
            while (call("GET", b, "/clients/dev-online").statusCode() == 404 && System.currentTimeMillis() < deadline) {
                sleep();
            }
            String downlink = "/downlink?client=dev-online&topic=devices/dev-online/cmd&qos=1";

            HttpResponse<String> onB = post(b, downlink, "from-b");
            assertEquals(200, onB.statusCode(), onB.body());
            assertEquals("delivered", JSON.readTree(onB.body()).get("outcome").asText());
            assertEquals("node-a", JSON.readTree(onB.body()).get("node").asText());
            assertEquals(0, JSON.readTree(call("GET", b, "/sessions/dev-online").body()).get("pending").asInt(),
                    "nothing queued for a device that is online elsewhere");

            HttpResponse<String> onA = post(a, downlink, "from-a");
            assertEquals(200, onA.statusCode(), onA.body());
            assertEquals("delivered", JSON.readTree(onA.body()).get("outcome").asText());
            deadline = System.currentTimeMillis() + 15_000;
            while (received.size() < 2 && System.currentTimeMillis() < deadline) {
                sleep();
            }
            assertEquals(java.util.List.of("from-b", "from-a"), received, "delivered once each, by the holder");

            // once the device is offline its persistent session takes the message on any node
            device.disconnect().join();
            deadline = System.currentTimeMillis() + 15_000;
            HttpResponse<String> offline;
            do {
                offline = post(b, downlink, "while-offline");
            } while (offline.statusCode() == 409 && System.currentTimeMillis() < deadline && sleep());
            assertEquals(200, offline.statusCode(), offline.body());
            assertEquals("queued", JSON.readTree(offline.body()).get("outcome").asText());
        }
    }

    private static HttpResponse<String> post(Gateway node, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + path))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + TestGateway.OPERATOR_TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(50);
        return true;
    }
}
