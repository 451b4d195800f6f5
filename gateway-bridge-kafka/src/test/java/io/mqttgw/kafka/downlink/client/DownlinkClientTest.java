package io.mqttgw.kafka.downlink.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.kafka.downlink.DownlinkRecords;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class DownlinkClientTest {
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final Map<String, Route> routes = Map.of("dev-1", new Route("dev-1", "gw-2", 7, 0, "10.0.0.1:1"));

    private DownlinkClient client(OfflinePolicy offline) {
        return DownlinkClient.builder().producer(producer)
                .routes(id -> CompletableFuture.completedFuture(Optional.ofNullable(routes.get(id))))
                .nodes(() -> List.of("gw-1", "gw-2", "gw-3"))
                .offlinePolicy(offline).build();
    }

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void producesToTheDownlinkTopicOfTheNodeHoldingTheDevice() throws Exception {
        byte[] payload = "reboot".getBytes(StandardCharsets.UTF_8);
        SendResult result = client(OfflinePolicy.drop()).send("dev-1", "devices/dev-1/commands", 1, payload,
                Instant.ofEpochMilli(1_700_000_000_123L)).toCompletableFuture().get();
        assertTrue(result.sent());
        assertEquals("gw-2", result.nodeId());
        assertEquals("device.downlink.gw-2", result.kafkaTopic());
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertEquals("device.downlink.gw-2", r.topic());
        assertArrayEquals("dev-1".getBytes(StandardCharsets.UTF_8), r.key());
        assertArrayEquals(payload, r.value());
        assertEquals("devices/dev-1/commands", header(r, "mqtt.topic"));
        assertEquals("1", header(r, "mqtt.qos"));
        assertEquals("1700000000123", header(r, "expires.at"));
        assertNull(header(r, "mqtt.retain"));
        var mapped = DownlinkRecords.map(r.key(), r.value(), r.headers());
        assertNull(mapped.malformed(), "what the client writes, the gateway reads");
        assertEquals(1_700_000_000_123L, mapped.message().expiresAtMillis());
    }

    @Test
    void dropsACommandForADeviceOnNoNodeByDefault() throws Exception {
        SendResult result = client(OfflinePolicy.drop()).send("dev-9", "devices/dev-9/commands", 1, new byte[1])
                .toCompletableFuture().get();
        assertEquals(SendResult.Status.NOT_CONNECTED, result.status());
        assertFalse(result.offlineQueued());
        assertTrue(producer.history().isEmpty());
    }

    @Test
    void producesACommandForADeviceOnNoNodeToTheOfflineTopicWhenAsked() throws Exception {
        SendResult result = client(OfflinePolicy.produceTo("device.downlink.offline"))
                .send("dev-9", "devices/dev-9/commands", 0, true, new byte[1], null).toCompletableFuture().get();
        assertEquals(SendResult.Status.NOT_CONNECTED, result.status());
        assertTrue(result.offlineQueued());
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertEquals("device.downlink.offline", r.topic());
        assertEquals("0", header(r, "mqtt.qos"));
        assertEquals("true", header(r, "mqtt.retain"));
    }

    @Test
    void broadcastsAStarRecordToEveryNode() throws Exception {
        assertEquals(3, client(OfflinePolicy.drop()).broadcast("fleet/firmware", 1, new byte[1])
                .toCompletableFuture().get());
        assertEquals(List.of("device.downlink.gw-1", "device.downlink.gw-2", "device.downlink.gw-3"),
                producer.history().stream().map(ProducerRecord::topic).toList());
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            assertEquals("*", new String(r.key(), StandardCharsets.UTF_8));
            assertTrue(DownlinkRecords.map(r.key(), r.value(), r.headers()).broadcast());
        }
    }

    @Test
    void failsTheStageWhenTheLookupOrKafkaFails() {
        DownlinkClient failingLookup = DownlinkClient.builder().producer(producer)
                .routes(id -> CompletableFuture.failedFuture(new IllegalStateException("redis down"))).build();
        ExecutionException e = assertThrows(ExecutionException.class, () -> failingLookup
                .send("dev-1", "devices/dev-1/c", 1, new byte[1]).toCompletableFuture().get());
        assertEquals("redis down", e.getCause().getMessage());

        MockProducer<byte[], byte[]> manual = new MockProducer<>(false, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        CompletableFuture<SendResult> stage = DownlinkClient.builder().producer(manual)
                .routes(id -> CompletableFuture.completedFuture(Optional.of(routes.get("dev-1")))).build()
                .send("dev-1", "devices/dev-1/c", 1, new byte[1]).toCompletableFuture();
        manual.errorNext(new org.apache.kafka.common.errors.TimeoutException("kafka down"));
        assertTrue(stage.isCompletedExceptionally());
    }

    @Test
    void refusesWhatNoDeviceCouldReceive() {
        DownlinkClient c = client(OfflinePolicy.drop());
        assertThrows(IllegalArgumentException.class, () -> c.send("dev-1", "devices/+/c", 1, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> c.send("dev-1", "devices/dev-1/c", 3, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> c.send("*", "devices/dev-1/c", 1, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> DownlinkClient.builder().topicTemplate("downlink")
                .routes(id -> CompletableFuture.completedFuture(Optional.empty())).build());
    }
}
