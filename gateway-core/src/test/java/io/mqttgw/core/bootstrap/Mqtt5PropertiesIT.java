package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PayloadFormatIndicator;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MQTT 5.0 properties end to end with real 5.0 clients over mutual TLS: uplink through the embedded file sink,
 * downlink from the admin operation.
 */
class Mqtt5PropertiesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).with("uplink.sink", "file").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** The line the file sink wrote for {@code clientId}'s message on {@code topic}; fails when there is none. */
    static JsonNode line(String clientId, String topic) throws Exception {
        for (String text : Files.readAllLines(dir.resolve("uplink").resolve("uplink.jsonl"), StandardCharsets.UTF_8)) {
            JsonNode line = JSON.readTree(text);
            if (clientId.equals(line.path("client").asText()) && topic.equals(line.path("topic").asText())) {
                return line;
            }
        }
        throw new AssertionError("no line for " + clientId + " on " + topic);
    }

    @Test
    void everyPublishPropertyOfAFiveDeviceReachesTheJsonLine() throws Exception {
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-props").buildAsync();
        device.connect().get(15, TimeUnit.SECONDS);
        try {
            // QoS 1: the PUBACK comes only once the line was handed to the file system
            device.publishWith().topic("devices/dev-props/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                    .payload("{\"t\":21.5}".getBytes(StandardCharsets.UTF_8))
                    .payloadFormatIndicator(Mqtt5PayloadFormatIndicator.UTF_8)
                    .messageExpiryInterval(60)
                    .contentType("application/json")
                    .responseTopic("devices/dev-props/replies")
                    .correlationData(new byte[] {0, 1, 2, (byte) 0xFF})
                    .userProperties().add("site", "north").add("unit", "°C").add("site", "south").applyUserProperties()
                    .send().get(15, TimeUnit.SECONDS);
        } finally {
            device.disconnect().get(15, TimeUnit.SECONDS);
        }

        JsonNode line = line("dev-props", "devices/dev-props/telemetry");
        assertEquals(1, line.path("payloadFormatIndicator").asInt());
        assertEquals(60, line.path("messageExpiryInterval").asLong());
        assertEquals("application/json", line.path("contentType").asText());
        assertEquals("devices/dev-props/replies", line.path("responseTopic").asText());
        assertEquals(Base64.getEncoder().encodeToString(new byte[] {0, 1, 2, (byte) 0xFF}),
                line.path("correlationData").asText());
        assertEquals(JSON.readTree("[{\"name\":\"site\",\"value\":\"north\"},{\"name\":\"unit\",\"value\":\"°C\"},"
                + "{\"name\":\"site\",\"value\":\"south\"}]"), line.path("userProperties"));
        assertEquals("{\"t\":21.5}", new String(Base64.getDecoder().decode(line.path("payload").asText()),
                StandardCharsets.UTF_8));
    }

    @Test
    void aFiveMessageWithoutPropertiesKeepsTheThreeOneOneLineShape() throws Exception {
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-plain").buildAsync();
        device.connect().get(15, TimeUnit.SECONDS);
        try {
            device.publishWith().topic("devices/dev-plain/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                    .payload(new byte[] {1}).send().get(15, TimeUnit.SECONDS);
        } finally {
            device.disconnect().get(15, TimeUnit.SECONDS);
        }

        JsonNode line = line("dev-plain", "devices/dev-plain/telemetry");
        assertNotNull(line.get("payload"));
        for (String key : new String[] {"payloadFormatIndicator", "messageExpiryInterval", "contentType",
                "responseTopic", "correlationData", "userProperties"}) {
            assertFalse(line.has(key), key + " in " + line);
        }
    }

    /** A 5.0 device subscribed to its commands topic at QoS 1; what it receives goes to {@code received}. */
    static Mqtt5AsyncClient commandsDevice(String clientId, LinkedBlockingQueue<Mqtt5Publish> received)
            throws Exception {
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), clientId).buildAsync();
        device.connect().get(15, TimeUnit.SECONDS);
        device.subscribeWith().topicFilter("devices/" + clientId + "/commands").qos(MqttQos.AT_LEAST_ONCE)
                .callback(received::add).send().get(15, TimeUnit.SECONDS);
        return device;
    }

    @Test
    void theAdminDownlinkSendsEveryPropertyToAFiveDevice() throws Exception {
        LinkedBlockingQueue<Mqtt5Publish> received = new LinkedBlockingQueue<>();
        Mqtt5AsyncClient device = commandsDevice("dev-cmd", received);
        try {
            HttpResponse<String> answer = DownlinkIT.post(gateway, "/downlink?client=dev-cmd"
                    + "&topic=devices/dev-cmd/commands&qos=1&expiry=60&user.site=north&content-type=application/json"
                    + "&user.unit=%C2%B0C&response-topic=devices/dev-cmd/replies&correlation-data=AAEC_w"
                    + "&payload-format=utf-8&user.site=south", "{\"op\":\"reboot\"}").get(15, TimeUnit.SECONDS);
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals("{\"outcome\":\"delivered\"}\n", answer.body());

            Mqtt5Publish p = received.poll(15, TimeUnit.SECONDS);
            assertNotNull(p, "the command arrived");
            assertEquals("{\"op\":\"reboot\"}", new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8));
            long expiry = p.getMessageExpiryInterval().orElse(-1);
            assertTrue(expiry >= 1 && expiry <= 60, "expiry left " + expiry);
            assertEquals("application/json", p.getContentType().orElseThrow().toString());
            assertEquals("devices/dev-cmd/replies", p.getResponseTopic().orElseThrow().toString());
            ByteBuffer correlation = p.getCorrelationData().orElseThrow();
            byte[] bytes = new byte[correlation.remaining()];
            correlation.get(bytes);
            assertArrayEquals(new byte[] {0, 1, 2, (byte) 0xFF}, bytes);
            assertEquals(Mqtt5PayloadFormatIndicator.UTF_8, p.getPayloadFormatIndicator().orElseThrow());
            assertEquals(List.of("site=north", "unit=°C", "site=south"), p.getUserProperties().asList().stream()
                    .map(u -> u.getName() + "=" + u.getValue()).toList());
        } finally {
            device.disconnect().get(15, TimeUnit.SECONDS);
        }
    }

    @Test
    void theAdminDownlinkRefusesAnUnknownParameterByNameAndSendsNothing() throws Exception {
        LinkedBlockingQueue<Mqtt5Publish> received = new LinkedBlockingQueue<>();
        Mqtt5AsyncClient device = commandsDevice("dev-typo", received);
        try {
            HttpResponse<String> refused = DownlinkIT.post(gateway, "/downlink?client=dev-typo"
                    + "&topic=devices/dev-typo/commands&qos=1&exipry=60&user.k=v", "first").get(15, TimeUnit.SECONDS);
            assertEquals(400, refused.statusCode());
            assertTrue(refused.body().contains("exipry"), refused.body());

            // what the device gets next is the second message: the refused one was never sent
            assertEquals(200, DownlinkIT.post(gateway, "/downlink?client=dev-typo&topic=devices/dev-typo/commands"
                    + "&qos=1", "second").get(15, TimeUnit.SECONDS).statusCode());
            Mqtt5Publish p = received.poll(15, TimeUnit.SECONDS);
            assertNotNull(p);
            assertEquals("second", new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8));
        } finally {
            device.disconnect().get(15, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRetainedDownlinkToAnOfflineDeviceSaysItWasStoredAndReachesTheDeviceLater() throws Exception {
        HttpResponse<String> answer = DownlinkIT.post(gateway, "/downlink?client=dev-later"
                + "&topic=devices/dev-later/config&qos=1&retain=true", "cfg-3").get(15, TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals("{\"outcome\":\"not_connected\",\"retained\":\"stored\"}\n", answer.body());

        LinkedBlockingQueue<Mqtt5Publish> received = new LinkedBlockingQueue<>();
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-later").buildAsync();
        device.connect().get(15, TimeUnit.SECONDS);
        try {
            device.subscribeWith().topicFilter("devices/dev-later/config").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(received::add).send().get(15, TimeUnit.SECONDS);
            Mqtt5Publish p = received.poll(15, TimeUnit.SECONDS);
            assertNotNull(p, "the retained message followed the SUBACK");
            assertTrue(p.isRetain());
            assertEquals("cfg-3", new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8));
        } finally {
            device.disconnect().get(15, TimeUnit.SECONDS);
        }
    }
}
