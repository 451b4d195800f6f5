package io.mqttgw.kafka.downlink.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore.Append;
import io.mqttgw.kafka.downlink.DownlinkRecords;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** {@link OfflinePolicy#store}: a command for a device on no node goes to its persistent session, not to Kafka. */
class DownlinkClientOfflineStoreTest {
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final Map<String, Route> routes = Map.of("dev-on", new Route("dev-on", "gw-2", 7, 0, "10.0.0.1:1"));
    private final List<DownlinkMessage> stored = new CopyOnWriteArrayList<>();

    private DownlinkClient client(Function<DownlinkMessage, CompletionStage<Append>> store) {
        return DownlinkClient.builder().producer(producer)
                .routes(id -> CompletableFuture.completedFuture(Optional.ofNullable(routes.get(id))))
                .offlinePolicy(OfflinePolicy.store(m -> {
                    stored.add(m);
                    return store.apply(m);
                })).build();
    }

    private static Function<DownlinkMessage, CompletionStage<Append>> answering(Append append) {
        return m -> CompletableFuture.completedFuture(append);
    }

    private static SendResult get(CompletionStage<SendResult> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void storesACommandForADeviceOnNoNodeInItsPersistentSession() throws Exception {
        byte[] payload = "reboot".getBytes(StandardCharsets.UTF_8);
        SendResult result = get(client(answering(Append.stored("17"))).send("dev-off", "devices/dev-off/commands",
                2, payload, Instant.ofEpochMilli(1_900_000_000_000L)));
        assertEquals(SendResult.Status.STORED, result.status());
        assertFalse(result.sent());
        assertFalse(result.offlineQueued());
        assertNull(result.nodeId());
        assertNull(result.kafkaTopic());
        assertEquals(-1, result.partition());
        assertEquals(-1, result.offset());
        assertTrue(producer.history().isEmpty(), "nothing goes to Kafka");

        assertEquals(1, stored.size());
        DownlinkMessage m = stored.get(0);
        assertEquals("dev-off", m.clientId());
        assertEquals("devices/dev-off/commands", m.topic());
        assertEquals(2, m.qos());
        assertFalse(m.retain());
        assertArrayEquals(payload, m.payload());
        assertEquals(1_900_000_000_000L, m.expiresAtMillis());
    }

    @Test
    void aCommandWithoutExpiryIsStoredWithoutExpiry() throws Exception {
        get(client(answering(Append.stored("1"))).send("dev-off", "devices/dev-off/commands", 1, new byte[1]));
        assertEquals(0L, stored.get(0).expiresAtMillis());
    }

    @Test
    void aFullSessionSaysQueueFullAndNoSessionSaysNotConnected() throws Exception {
        assertEquals(SendResult.Status.QUEUE_FULL, get(client(answering(Append.FULL))
                .send("dev-off", "devices/dev-off/commands", 1, new byte[1])).status());
        SendResult none = get(client(answering(Append.NO_SESSION))
                .send("dev-off", "devices/dev-off/commands", 1, new byte[1]));
        assertEquals(SendResult.Status.NOT_CONNECTED, none.status());
        assertFalse(none.offlineQueued());
        assertTrue(producer.history().isEmpty());
    }

    @Test
    void aQos0CommandIsNotStored() throws Exception {
        SendResult result = get(client(answering(Append.stored("1")))
                .send("dev-off", "devices/dev-off/commands", 0, new byte[1]));
        assertEquals(SendResult.Status.NOT_CONNECTED, result.status());
        assertTrue(stored.isEmpty(), "the store is not asked");
    }

    @Test
    void aCommandForAConnectedDeviceGoesToItsNodeAndIsNotStored() throws Exception {
        SendResult result = get(client(answering(Append.stored("1")))
                .send("dev-on", "devices/dev-on/commands", 1, new byte[1]));
        assertEquals(SendResult.Status.SENT, result.status());
        assertEquals("device.downlink.gw-2", result.kafkaTopic());
        assertTrue(stored.isEmpty());
    }

    @Test
    void theStoredCopyOfARetainedCommandHasTheRetainFlagCleared() throws Exception {
        SendResult result = get(client(answering(Append.stored("1")))
                .send("dev-off", "devices/dev-off/config", 1, true, new byte[] {1}, null));
        assertEquals(SendResult.Status.STORED, result.status());
        assertFalse(stored.get(0).retain(), "sent on reconnect as a delivery, not as a retained message");
    }

    @Test
    void aFailingStoreFailsTheStage() {
        ExecutionException async = assertThrows(ExecutionException.class, () -> get(client(
                m -> CompletableFuture.failedFuture(new IllegalStateException("redis down")))
                .send("dev-off", "devices/dev-off/commands", 1, new byte[1])));
        assertEquals("redis down", async.getCause().getMessage());

        CompletionStage<SendResult> stage = client(m -> {
            throw new IllegalArgumentException("refused at once");
        }).send("dev-off", "devices/dev-off/commands", 1, new byte[1]);
        ExecutionException sync = assertThrows(ExecutionException.class, () -> get(stage));
        assertInstanceOf(IllegalArgumentException.class, sync.getCause(), "a store that throws fails the stage");
    }

    @Test
    void aStoreAnsweringLaterCompletesTheStageThen() throws Exception {
        CompletableFuture<Append> later = new CompletableFuture<>();
        CompletableFuture<SendResult> stage = client(m -> later)
                .send("dev-off", "devices/dev-off/commands", 1, new byte[1]).toCompletableFuture();
        assertFalse(stage.isDone());
        later.complete(Append.stored("3"));
        assertEquals(SendResult.Status.STORED, stage.get(5, TimeUnit.SECONDS).status());
    }

    @Test
    void aRetainedBroadcastCarriesTheRetainHeaderToEveryNode() throws Exception {
        DownlinkClient c = client(answering(Append.NO_SESSION));
        assertEquals(2, c.broadcast(List.of("gw-1", "gw-2"), "fleet/eu/config", 1, true,
                "cfg".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertEquals(List.of("device.downlink.gw-1", "device.downlink.gw-2"),
                producer.history().stream().map(ProducerRecord::topic).toList());
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            var mapped = DownlinkRecords.map(r.key(), r.value(), r.headers());
            assertTrue(mapped.broadcast());
            assertTrue(mapped.message().retain(), "the node stores it as the topic's retained message");
            assertEquals("fleet/eu/config", mapped.message().topic());
        }
        assertThrows(IllegalArgumentException.class, () -> c.broadcast(List.of("gw-1"), "fleet/+/config", 1, true,
                new byte[1]));
    }
}
