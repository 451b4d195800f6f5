package io.mqttgw.core.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesFileSinkTest {
    private static final long T0 = Instant.parse("2026-03-01T12:00:00.123Z").toEpochMilli();

    @TempDir
    Path dir;

    private final List<JsonLinesFileSink> sinks = new ArrayList<>();

    private JsonLinesFileSink sink(long maxFileSize, int maxFiles, int queueCapacity) {
        JsonLinesFileSink sink = new JsonLinesFileSink(dir, maxFileSize, maxFiles, queueCapacity, "node-a");
        sinks.add(sink);
        return sink;
    }

    @AfterEach
    void close() throws Exception {
        for (JsonLinesFileSink s : sinks) {
            s.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    private static UplinkMessage message(String topic, byte[] payload) {
        return new UplinkMessage("dev-1", topic, 1, false, payload, T0);
    }

    private static void await(java.util.concurrent.CompletionStage<Void> stage) throws Exception {
        stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private Path current() {
        return dir.resolve("uplink.jsonl");
    }

    private List<Path> rolled() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("uplink-")).sorted().toList();
        }
    }

    @Test
    void writesOneJsonLinePerMessageWithABase64PayloadBeforeTheStageCompletes() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);

        CompletableFuture<Void> done = sink.send(new UplinkMessage("dev-1", "telemetry/temp", 1, true,
                new byte[] {0, 1, 2, (byte) 0xFF}, T0)).toCompletableFuture();
        done.get(5, TimeUnit.SECONDS);

        // the stage completes only after the line was handed to the file system
        List<String> lines = Files.readAllLines(current(), StandardCharsets.UTF_8);
        assertEquals(List.of("{\"ts\":\"2026-03-01T12:00:00.123Z\",\"node\":\"node-a\",\"client\":\"dev-1\","
                + "\"topic\":\"telemetry/temp\",\"qos\":1,\"retain\":true,\"payload\":\"AAEC/w==\"}"), lines);
        assertEquals(HealthStatus.UP, sink.health());
    }

    @Test
    void writesEveryMqtt5PropertyAfterThePayloadWithUserPropertiesInOrderAndRepeated() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);
        MessageProperties properties = new MessageProperties(true, "application/json", "devices/dev-1/replies",
                new byte[] {0, 1, 2, (byte) 0xFF}, List.of(new MessageProperties.UserProperty("b", "2"),
                        new MessageProperties.UserProperty("a", "1\""), new MessageProperties.UserProperty("b", "3")));
        await(sink.send(new UplinkMessage("dev-1", "telemetry/temp", 1, false, "{}".getBytes(StandardCharsets.UTF_8),
                T0, properties, 4_294_967_295L)));

        assertEquals(List.of("{\"ts\":\"2026-03-01T12:00:00.123Z\",\"node\":\"node-a\",\"client\":\"dev-1\","
                + "\"topic\":\"telemetry/temp\",\"qos\":1,\"retain\":false,\"payload\":\"e30=\","
                + "\"payloadFormatIndicator\":1,\"messageExpiryInterval\":4294967295,"
                + "\"contentType\":\"application/json\",\"responseTopic\":\"devices/dev-1/replies\","
                + "\"correlationData\":\"AAEC/w==\",\"userProperties\":[{\"name\":\"b\",\"value\":\"2\"},"
                + "{\"name\":\"a\",\"value\":\"1\\\"\"},{\"name\":\"b\",\"value\":\"3\"}]}"),
                Files.readAllLines(current(), StandardCharsets.UTF_8));
    }

    @Test
    void writesOnlyThePropertiesTheDeviceSent() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);
        await(sink.send(new UplinkMessage("dev-1", "t", 0, false, new byte[0], T0,
                new MessageProperties(false, null, null, new byte[0], List.of()), 0)));

        assertEquals(List.of("{\"ts\":\"2026-03-01T12:00:00.123Z\",\"node\":\"node-a\",\"client\":\"dev-1\","
                + "\"topic\":\"t\",\"qos\":0,\"retain\":false,\"payload\":\"\",\"messageExpiryInterval\":0,"
                + "\"correlationData\":\"\"}"), Files.readAllLines(current(), StandardCharsets.UTF_8));
    }

    @Test
    void writesLinesInSendOrder() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            done.add(sink.send(message("t/" + i, new byte[] {(byte) i})).toCompletableFuture());
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);

        List<String> lines = Files.readAllLines(current());
        assertEquals(100, lines.size());
        for (int i = 0; i < 100; i++) {
            assertTrue(lines.get(i).contains("\"topic\":\"t/" + i + "\""), lines.get(i));
        }
    }

    @Test
    void escapesQuotesBackslashesAndControlCharactersInStrings() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);
        await(sink.send(new UplinkMessage("dev \"7\"", "a\"b\nc\\d\te\rf\u0001g/ü", 0, false, new byte[0], T0)));

        List<String> lines = Files.readAllLines(current(), StandardCharsets.UTF_8);
        assertEquals(1, lines.size(), "a newline in a topic does not break the line");
        String line = lines.get(0);
        assertTrue(line.contains("\"client\":\"dev \\\"7\\\"\""), line);
        assertTrue(line.contains("\"topic\":\"a\\\"b\\nc\\\\d\\te\\rf\\u0001g/ü\""), line);
        assertTrue(line.endsWith("\"payload\":\"\"}"), line);
    }

    @Test
    void quoteEscapesEveryControlCharacter() {
        StringBuilder b = new StringBuilder();
        JsonLinesFileSink.quote(b, "\u0000\u001f\u007f");
        assertEquals("\"\\u0000\\u001f\u007f\"", b.toString());
    }

    @Test
    void rollsAtMaxFileSizeKeepingAtMostMaxFilesRolledFiles() throws Exception {
        JsonLinesFileSink sink = sink(1024, 2, 1024);
        byte[] payload = new byte[300]; // a line of about 550 bytes: every second line rolls the file
        for (int i = 0; i < 10; i++) {
            await(sink.send(message("t/" + i, payload)));
        }
        await(sink.send(message("t/last", payload)));

        List<Path> rolled = rolled();
        assertEquals(2, rolled.size(), "rolled files kept: " + rolled);
        for (Path p : rolled) {
            assertTrue(Files.size(p) >= 1024, p + " was rolled at the size limit");
            assertTrue(p.getFileName().toString().endsWith(".jsonl"));
        }
        assertTrue(Files.size(current()) < 1024);
        // the newest data is kept: the last message is in the current file, the oldest was deleted
        assertTrue(Files.readString(current()).contains("t/last"));
        String kept = Files.readString(rolled.get(0)) + Files.readString(rolled.get(1));
        assertFalse(kept.contains("\"t/0\""), "the oldest rolled file was deleted");
        assertTrue(kept.contains("\"t/9\""));
    }

    @Test
    void rollsByBytesNotCharacters() throws Exception {
        JsonLinesFileSink sink = sink(1024, 5, 1024);
        String topic = "€".repeat(100); // 100 characters, 300 bytes in UTF-8
        for (int i = 0; i < 3; i++) {
            await(sink.send(message(topic, new byte[0]))); // about 230 characters, 430 bytes a line
        }
        await(sink.send(message("after", new byte[0])));

        // 3 lines are about 1290 bytes, past max-file-size (the file was rolled after the third line)
        assertEquals(1, rolled().size(), "max-file-size counts bytes on disk");
        assertEquals(List.of(), Files.readAllLines(current()).stream().filter(l -> l.contains("€")).toList());
    }

    @Test
    void deletesTheOldestRolledFilesByTimeNotByNameLength() throws Exception {
        // rolled names have a fixed width, so name order is age order, also within one second
        Path older = Files.writeString(dir.resolve("uplink-20260101T000000.000Z-000001.jsonl"), "older\n");
        Path newer = Files.writeString(dir.resolve("uplink-20260101T000000.500Z-000002.jsonl"), "newer\n");
        JsonLinesFileSink sink = sink(1024, 2, 1024);

        await(sink.send(message("t", new byte[1100]))); // rolls: now three rolled files, two are kept
        await(sink.send(message("t", new byte[0])));

        assertEquals(2, rolled().size());
        assertTrue(Files.exists(newer), "the newer of the two old files is kept");
        assertFalse(Files.exists(older), "the oldest file is deleted");
    }

    @Test
    void appendsToAnExistingFileAndCountsItsSize() throws Exception {
        Files.writeString(current(), "x".repeat(1000) + "\n");
        JsonLinesFileSink sink = sink(1024, 2, 1024);
        await(sink.send(message("t", new byte[0])));
        await(sink.send(message("t2", new byte[0])));

        assertEquals(1, rolled().size(), "the existing 1001 bytes count towards max-file-size");
        assertTrue(Files.readString(rolled().get(0)).startsWith("x".repeat(1000)));
    }

    @Test
    void refusesASendAfterClose() throws Exception {
        JsonLinesFileSink sink = sink(1 << 20, 3, 1024);
        sink.close().toCompletableFuture().get(5, TimeUnit.SECONDS);

        CompletableFuture<Void> refused = sink.send(message("t", new byte[0])).toCompletableFuture();
        assertTrue(refused.isCompletedExceptionally());
        ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(1, TimeUnit.SECONDS));
        assertInstanceOf(UplinkRejectedException.class, e.getCause());
    }

    @Test
    void closeFlushesWhatWasQueued() throws Exception {
        JsonLinesFileSink sink = sink(1L << 30, 3, 100_000);
        int n = 20_000;
        List<CompletableFuture<Void>> done = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            done.add(sink.send(message("t/" + i, new byte[64])).toCompletableFuture());
        }
        done.get(0).get(5, TimeUnit.SECONDS); // the writer is busy with the backlog

        sink.close().toCompletableFuture().get(5, TimeUnit.SECONDS);

        int failed = 0;
        Throwable firstFailure = null;
        for (CompletableFuture<Void> f : done) {
            assertTrue(f.isDone(), "every queued message is answered by the time close completes");
            if (f.isCompletedExceptionally()) {
                failed++;
                if (firstFailure == null) {
                    try {
                        f.join();
                    } catch (CompletionException e) {
                        firstFailure = e.getCause();
                    }
                }
            }
        }
        assertEquals(0, failed, "messages queued before close failed, first with " + firstFailure);
        try (Stream<String> lines = Files.lines(current())) {
            assertEquals(n, lines.count());
        }
    }

    @Test
    void refusesWhenTheQueueIsFull() throws Exception {
        JsonLinesFileSink sink = sink(1L << 30, 3, 16);
        int refused = 0;
        List<CompletableFuture<Void>> accepted = new ArrayList<>();
        for (int i = 0; i < 50_000 && refused == 0; i++) {
            CompletableFuture<Void> f = sink.send(message("t", new byte[256])).toCompletableFuture();
            if (f.isCompletedExceptionally()) {
                refused++;
                ExecutionException e = assertThrows(ExecutionException.class, f::get);
                assertInstanceOf(UplinkRejectedException.class, e.getCause());
            } else {
                accepted.add(f);
            }
        }
        assertTrue(refused > 0, "a 16-entry queue overflows when sends outpace the writer");
        CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
    }

    @Test
    void aFullQueueIsARefusalForCapacityAndItsWaiterIsToldOnceTheWriterDrainsIt() throws Exception {
        JsonLinesFileSink sink = sink(1L << 30, 3, 16);
        UplinkMessage m = message("t", new byte[256]);
        Throwable refusal = null;
        for (int i = 0; i < 50_000 && refusal == null; i++) {
            CompletableFuture<Void> f = sink.send(m).toCompletableFuture();
            if (f.isCompletedExceptionally()) {
                refusal = assertThrows(ExecutionException.class, f::get).getCause();
            }
        }
        assertTrue(refusal != null, "a 16-entry queue overflows when sends outpace the writer");
        assertTrue(UplinkRejectedException.isCapacity(refusal));
        java.util.concurrent.CountDownLatch told = new java.util.concurrent.CountDownLatch(1);
        io.mqttgw.core.spi.RoomWait wait = new io.mqttgw.core.spi.RoomWait() {
            @Override
            protected void room() {
                told.countDown();
            }
        };
        assertTrue(sink.waitForRoom(wait, m));
        assertTrue(told.await(10, TimeUnit.SECONDS), "the writer drained the queue and said so");
        sink.endWait(wait);
        assertEquals(0, sink.roomWaiters());
        await(sink.send(m));
    }
}
