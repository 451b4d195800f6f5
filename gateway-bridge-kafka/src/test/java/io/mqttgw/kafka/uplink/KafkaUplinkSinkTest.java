package io.mqttgw.kafka.uplink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.RoomWait;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.kafka.mapping.TopicMapping;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class KafkaUplinkSinkTest {
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TopicMapping mapping = TopicMapping.parse(List.of("devices/+/heartbeat=device.heartbeat"),
            "device.uplink");

    private KafkaUplinkSink sink(long maxPending) {
        return new KafkaUplinkSink(producer, mapping, maxPending, "node-7", meters);
    }

    private static UplinkMessage message(String topic, int payloadBytes) {
        return new UplinkMessage("dev-1", topic, 1, false, new byte[payloadBytes], 1_700_000_000_123L);
    }

    private static Throwable failure(java.util.concurrent.CompletionStage<Void> stage) {
        try {
            stage.toCompletableFuture().get();
            throw new AssertionError("expected a failed stage");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private double failed(String cause) {
        return meters.get("mqttgw.kafka.records.failed").tag("cause", cause).counter().count();
    }

    @Test
    void completesOnlyWhenKafkaAcknowledges() {
        CompletableFuture<Void> stage = sink(1 << 20).send(message("devices/dev-1/heartbeat", 20))
                .toCompletableFuture();
        assertFalse(stage.isDone());
        producer.completeNext();
        assertTrue(stage.isDone() && !stage.isCompletedExceptionally());
        assertEquals(1.0, meters.get("mqttgw.kafka.records.acknowledged").counter().count());
    }

    @Test
    void keysByDeviceAndCarriesTheMqttContextInHeaders() {
        UplinkMessage m = new UplinkMessage("dev-1", "devices/dev-1/heartbeat", 1, false,
                "hb".getBytes(StandardCharsets.UTF_8), 1_700_000_000_123L);
        sink(1 << 20).send(m);
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertEquals("device.heartbeat", r.topic());
        assertArrayEquals("dev-1".getBytes(StandardCharsets.UTF_8), r.key());
        assertEquals(m.payload(), r.value(), "the payload array is handed over, not copied");
        assertEquals(1_700_000_000_123L, r.timestamp());
        assertEquals("devices/dev-1/heartbeat", new String(r.headers().lastHeader("mqtt.topic").value(),
                StandardCharsets.UTF_8));
        assertEquals("1", new String(r.headers().lastHeader("mqtt.qos").value(), StandardCharsets.UTF_8));
        assertEquals("dev-1", new String(r.headers().lastHeader("device.id").value(), StandardCharsets.UTF_8));
        assertEquals("node-7", new String(r.headers().lastHeader("gateway.node").value(), StandardCharsets.UTF_8));
        assertEquals("1700000000123", new String(r.headers().lastHeader("received.at").value(),
                StandardCharsets.UTF_8));
    }

    @Test
    void anMqtt5MessageCarriesItsPropertiesAsHeaders() {
        MessageProperties props = new MessageProperties(false, "text/plain", "replies/dev-1", new byte[] {4, 2},
                java.util.List.of(new MessageProperties.UserProperty("trace", "t-9")));
        sink(1 << 20).send(new UplinkMessage("dev-1", "devices/dev-1/reply", 1, false,
                "ok".getBytes(StandardCharsets.UTF_8), 1L, props));
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertEquals("text/plain", new String(r.headers().lastHeader("mqtt.content-type").value(),
                StandardCharsets.UTF_8));
        assertEquals("replies/dev-1", new String(r.headers().lastHeader("mqtt.response-topic").value(),
                StandardCharsets.UTF_8));
        assertArrayEquals(new byte[] {4, 2}, r.headers().lastHeader("mqtt.correlation-data").value());
        assertEquals("t-9", new String(r.headers().lastHeader("mqtt.user.trace").value(), StandardCharsets.UTF_8));
        assertEquals(null, r.headers().lastHeader("mqtt.payload-format"), "not marked UTF-8: no header");
    }

    @Test
    void anMqtt5MessageExpiryIntervalTravelsAsTheTimeItExpires() {
        KafkaUplinkSink sink = sink(1 << 20);
        sink.send(new UplinkMessage("dev-1", "devices/dev-1/status", 1, false, new byte[1], 1_700_000_000_123L,
                MessageProperties.NONE, 90));
        sink.send(new UplinkMessage("dev-1", "devices/dev-1/status", 1, false, new byte[1], 1_700_000_000_123L,
                MessageProperties.NONE, 0xFFFF_FFFFL));
        sink.send(message("devices/dev-1/status", 1));
        List<ProducerRecord<byte[], byte[]>> records = producer.history();
        assertEquals("1700000090123", new String(records.get(0).headers().lastHeader("expires.at").value(),
                StandardCharsets.US_ASCII));
        assertEquals(Long.toString(1_700_000_000_123L + 0xFFFF_FFFFL * 1000), new String(records.get(1).headers()
                .lastHeader("expires.at").value(), StandardCharsets.US_ASCII), "the largest interval, unsigned");
        assertEquals(null, records.get(2).headers().lastHeader("expires.at"), "no interval: no header");
    }

    @Test
    void refusesAtOnceWhenPendingBytesPassTheBoundAndAcceptsAgainOnceAcknowledged() {
        KafkaUplinkSink sink = sink(1000);
        CompletableFuture<Void> first = sink.send(message("a", 600)).toCompletableFuture();
        Throwable refused = failure(sink.send(message("a", 600)));
        assertInstanceOf(UplinkRejectedException.class, refused);
        assertEquals(1, producer.history().size(), "the refused record never reached the producer");
        assertEquals(1.0, failed("pending_bytes_full"));
        producer.completeNext();
        assertTrue(first.isDone());
        assertEquals(0, sink.pendingBytes());
        assertFalse(sink.send(message("a", 600)).toCompletableFuture().isCompletedExceptionally());
    }

    @Test
    void reportsADeliveryTimeoutAsAFailureNotARefusalAndDegradesHealthUntilTheNextAck() {
        KafkaUplinkSink sink = sink(1 << 20);
        var stage = sink.send(message("a", 10));
        producer.errorNext(new TimeoutException("Expiring 1 record(s)"));
        assertInstanceOf(TimeoutException.class, failure(stage));
        assertEquals(1.0, failed("timeout"));
        assertFalse(sink.health().up());
        assertTrue(sink.health().detail().contains("timeout"), sink.health().detail());
        sink.send(message("a", 10));
        producer.completeNext();
        assertTrue(sink.health().up());
    }

    @Test
    void treatsAMetadataTimeoutDuringSendAsARefusalAndBacksOffThatTopic() {
        producer.sendException = new TimeoutException("Topic device.uplink not present in metadata after 0 ms.");
        KafkaUplinkSink sink = sink(1 << 20);
        assertInstanceOf(UplinkRejectedException.class, failure(sink.send(message("a", 10))));
        producer.sendException = null;
        assertInstanceOf(UplinkRejectedException.class, failure(sink.send(message("a", 10))),
                "within the back-off the producer is not asked again");
        assertEquals(2.0, failed("metadata_unavailable"));
        assertEquals(0, producer.history().size());
        assertFalse(sink.send(message("devices/x/heartbeat", 10)).toCompletableFuture().isCompletedExceptionally(),
                "other topics are not held back");
    }

    private static final TimeoutException NO_METADATA =
            new TimeoutException("Topic device.uplink not present in metadata after 0 ms.");

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    private double gauge(String name) {
        return meters.get(name).gauge().value();
    }

    @Test
    void parksRecordsOfAKnownTopicWhileKafkaIsAwayAndHandsThemOverInOrderOnceItIsBack() throws Exception {
        KafkaUplinkSink sink = new KafkaUplinkSink(producer, mapping, 1 << 20, java.time.Duration.ofMinutes(5),
                "node-7", meters);
        sink.knownTopic("device.uplink");
        producer.sendException = NO_METADATA;
        CompletableFuture<Void> first = sink.send(message("a", 10)).toCompletableFuture();
        CompletableFuture<Void> second = sink.send(message("a", 11)).toCompletableFuture();
        Thread.sleep(3 * KafkaUplinkSink.PARKED_RETRY_MILLIS);
        assertFalse(first.isDone() || second.isDone(), "neither refused nor acknowledged while Kafka is away");
        assertEquals(2.0, gauge("mqttgw.kafka.parked.records"));
        assertEquals(2.0, gauge("mqttgw.kafka.pending.records"));
        assertTrue(sink.pendingBytes() > 21, "parked records stay charged against the bound");
        assertEquals(0.0, failed("metadata_unavailable"));
        assertFalse(sink.health().up(), "Kafka's absence shows in health");

        producer.sendException = null;
        awaitTrue("parked records handed to the producer", () -> producer.history().size() == 2);
        assertEquals(10, producer.history().get(0).value().length, "in the order they came");
        assertEquals(11, producer.history().get(1).value().length);
        assertEquals(0.0, gauge("mqttgw.kafka.parked.records"));
        producer.completeNext();
        producer.completeNext();
        assertTrue(first.isDone() && !first.isCompletedExceptionally());
        assertTrue(second.isDone() && !second.isCompletedExceptionally());
        assertFalse(sink.send(message("a", 12)).toCompletableFuture().isDone());
        assertEquals(3, producer.history().size(), "once drained, records go straight to the producer again");
    }

    @Test
    void aParkedRecordFailsAsATimeoutAfterTheDeliveryTimeout() throws Exception {
        KafkaUplinkSink sink = new KafkaUplinkSink(producer, mapping, 1 << 20, java.time.Duration.ofMillis(300),
                "node-7", meters);
        sink.knownTopic("device.uplink");
        producer.sendException = NO_METADATA;
        CompletableFuture<Void> stage = sink.send(message("a", 10)).toCompletableFuture();
        awaitTrue("the parked record given up", stage::isDone);
        assertInstanceOf(TimeoutException.class, failure(stage));
        assertEquals(1.0, failed("timeout"));
        assertEquals(0, sink.pendingBytes());
        assertEquals(0.0, gauge("mqttgw.kafka.parked.records"));
    }

    @Test
    void closingRefusesWhatIsParked() throws Exception {
        KafkaUplinkSink sink = new KafkaUplinkSink(producer, mapping, 1 << 20, java.time.Duration.ofMinutes(5),
                "node-7", meters);
        sink.knownTopic("device.uplink");
        producer.sendException = NO_METADATA;
        CompletableFuture<Void> stage = sink.send(message("a", 10)).toCompletableFuture();
        sink.close().toCompletableFuture().get();
        assertTrue(stage.isCompletedExceptionally(), "not left hanging: the device resends it");
        assertEquals(0, sink.pendingBytes());
    }

    @Test
    void countsARecordTooLargeWithoutDegradingHealth() {
        KafkaUplinkSink sink = sink(1 << 20);
        var stage = sink.send(message("a", 10));
        producer.errorNext(new RecordTooLargeException("too large"));
        failure(stage);
        assertEquals(1.0, failed("record_too_large"));
        assertTrue(sink.health().up(), "one device's oversized message says nothing about Kafka");
    }

    @Test
    void refusesAfterClose() throws Exception {
        KafkaUplinkSink sink = sink(1 << 20);
        sink.close().toCompletableFuture().get();
        assertInstanceOf(UplinkRejectedException.class, failure(sink.send(message("a", 10))));
        assertTrue(producer.closed());
    }

    private final List<String> told = new ArrayList<>();

    private RoomWait waiter(String name) {
        return new RoomWait() {
            @Override
            protected void room() {
                told.add(name);
            }
        };
    }

    @Test
    void aFullBoundIsARefusalForCapacityAndItsWaitersAreToldInOrderAFewAtATimeUnderHalfTheBound() {
        // each record costs 100 payload + 23 topic + 96 overhead = 219 bytes: four fit in 1000
        KafkaUplinkSink sink = sink(1000);
        for (int i = 0; i < 4; i++) {
            sink.send(message("devices/dev-1/heartbeat", 100));
        }
        UplinkMessage refused = message("devices/dev-1/heartbeat", 100);
        Throwable full = failure(sink.send(refused));
        assertTrue(UplinkRejectedException.isCapacity(full), "a full bound is no room now, not a failure");
        List<RoomWait> waiters = new ArrayList<>();
        for (String name : List.of("a", "b", "c", "d", "e")) {
            RoomWait w = waiter(name);
            waiters.add(w);
            assertTrue(sink.waitForRoom(w, refused));
        }
        sink.waitForRoom(waiters.get(0), refused);
        assertEquals(5, sink.roomWaiters(), "one entry per waiter");
        producer.completeNext();
        assertEquals(List.of(), told, "657 of 1000 pending: nobody yet");
        producer.completeNext();
        assertEquals(List.of("a", "b"), told, "438 pending: the free 562 take two");
        producer.completeNext();
        assertEquals(List.of("a", "b", "c"), told);
        sink.endWait(waiters.get(0));
        // b was refused again: back at the front
        assertTrue(sink.waitForRoom(waiters.get(1), refused));
        producer.completeNext();
        assertEquals(List.of("a", "b", "c", "b", "d", "e"), told);
        assertEquals(0, sink.roomWaiters());
    }

    @Test
    void aWaiterWhoseConnectionClosedLeavesTheQueue() {
        KafkaUplinkSink sink = sink(1000);
        for (int i = 0; i < 4; i++) {
            sink.send(message("devices/dev-1/heartbeat", 100));
        }
        RoomWait w = waiter("a");
        sink.waitForRoom(w, message("devices/dev-1/heartbeat", 100));
        sink.endWait(w);
        assertEquals(0, sink.roomWaiters());
        for (int i = 0; i < 4; i++) {
            producer.completeNext();
        }
        assertEquals(List.of(), told);
    }

    @Test
    void aClosedSinkRefusesWithoutCapacityAndTellsItsWaiters() throws Exception {
        KafkaUplinkSink sink = sink(1000);
        for (int i = 0; i < 4; i++) {
            sink.send(message("devices/dev-1/heartbeat", 100));
        }
        UplinkMessage refused = message("devices/dev-1/heartbeat", 100);
        sink.waitForRoom(waiter("a"), refused);
        sink.close().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(List.of("a"), told, "told, so that its resend is refused as closed and its wait ends");
        assertFalse(UplinkRejectedException.isCapacity(failure(sink.send(refused))));
        assertFalse(sink.waitForRoom(waiter("b"), refused));
    }
}
