package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Downlink through the admin endpoint to real devices: QoS 1 retried with DUP until PUBACK, and a broadcast. */
class DownlinkIT {
    @TempDir
    Path dir;

    /** POSTs to the admin listener as the test operator (the gateway needs {@link TestGateway#withOperatorToken}). */
    static CompletableFuture<HttpResponse<String>> post(Gateway gateway, String pathAndQuery, String body) {
        return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + gateway.adminPort() + pathAndQuery)).header("Authorization", "Bearer "
                        + TestGateway.OPERATOR_TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static byte[] subscribe(int packetId, String filter, int qos) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(packetId >> 8);
        body.write(packetId & 0xFF);
        byte[] f = filter.getBytes(StandardCharsets.UTF_8);
        body.write(f.length >> 8);
        body.write(f.length & 0xFF);
        body.writeBytes(f);
        body.write(qos);
        return RawMqttConnection.packet(0x82, body.toByteArray());
    }

    @Test
    void retransmitsACommandWithDupUntilTheDeviceAcknowledgesIt() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("downlink.retry-interval", "300ms").start();
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-dl")),
                     gateway.tlsPort())) {
            assertEquals(0, device.connect("dev-dl", 60));
            device.send(subscribe(1, "devices/dev-dl/commands", 1));
            assertEquals(0x90, device.readPacket()[0] & 0xFF, "SUBACK");

            CompletableFuture<HttpResponse<String>> answer = post(gateway,
                    "/downlink?client=dev-dl&topic=devices/dev-dl/commands&qos=1", "reboot");
            byte[] first = device.readPacket();
            assertEquals(0x32, first[0] & 0xFF, "PUBLISH QoS 1, not DUP");
            assertTrue(new String(first, StandardCharsets.UTF_8).endsWith("reboot"));
            byte[] again = device.readPacket();
            assertEquals(0x3A, again[0] & 0xFF, "sent again with DUP after the retry interval");
            assertFalse(answer.isDone(), "the admin answer waits for the device's PUBACK");

            // the packet id follows the topic (fixed header of two bytes here: a short packet)
            int topicLength = ((first[2] & 0xFF) << 8) | (first[3] & 0xFF);
            int packetId = ((first[4 + topicLength] & 0xFF) << 8) | (first[5 + topicLength] & 0xFF);
            device.send(new byte[] {0x40, 2, (byte) (packetId >> 8), (byte) packetId});
            assertEquals("{\"outcome\":\"delivered\"}\n", answer.get(5, TimeUnit.SECONDS).body());

            HttpResponse<String> unknown = post(gateway, "/downlink?client=nobody&topic=devices/nobody/commands&qos=1",
                    "x").get(5, TimeUnit.SECONDS);
            assertEquals("{\"outcome\":\"not_connected\"}\n", unknown.body());
            assertEquals(400, post(gateway, "/downlink?client=dev-dl&qos=1", "x").get(5, TimeUnit.SECONDS)
                    .statusCode(), "no topic");
        }
    }

    @Test
    void broadcastsToEverySubscribedDeviceExactlyOnce() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("acl.subscribe", "devices/{client-id}/#,fleet/+/firmware").start()) {
            ConcurrentHashMap<String, AtomicInteger> received = new ConcurrentHashMap<>();
            List<Mqtt3AsyncClient> fleet = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String id = "dev-fw-" + i;
                Mqtt3AsyncClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), id).buildAsync();
                c.connect().join();
                c.subscribeWith().topicFilter("fleet/+/firmware").qos(MqttQos.AT_LEAST_ONCE)
                        .callback(p -> received.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet())
                        .send().join();
                fleet.add(c);
            }
            Mqtt3AsyncClient bystander = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-other").buildAsync();
            bystander.connect().join();

            HttpResponse<String> answer = post(gateway, "/downlink/broadcast?topic=fleet/a/firmware&qos=1", "v2.1")
                    .get(10, TimeUnit.SECONDS);
            assertEquals("{\"handedTo\":20}\n", answer.body());
            long deadline = System.currentTimeMillis() + 5000;
            while (received.size() < 20 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(300);
            assertEquals(20, received.size());
            received.forEach((id, n) -> assertEquals(1, n.get(), id + " got it exactly once"));
            for (Mqtt3AsyncClient c : fleet) {
                c.disconnect().join();
            }
            bystander.disconnect().join();
        }
    }
}
