package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PayloadFormatIndicator;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MQTT 5.0 properties end to end with real 5.0 clients over mutual TLS, through the embedded file sink.
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
        gateway = TestGateway.tls(pki, dir).with("uplink.sink", "file").start();
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
}
