package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.RoomWait;
import io.mqttgw.core.spi.RoomWaiters;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import io.netty.buffer.ByteBufUtil;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends one JSON line per message to {@code uplink.jsonl} in a directory, rolling by size and keeping a bounded
 * number of rolled files. Event loops only enqueue; one writer thread ({@code uplink-file-writer}) drains the
 * queue in batches, writes, flushes to the OS and then completes the batch's stages, so a QoS 1 PUBACK means the
 * line was handed to the file system. Overflow policy: when {@code uplink.file.queue-capacity} messages wait, new
 * ones are refused at once with {@link UplinkRejectedException} for capacity (QoS 0 dropped and counted; QoS 1/2
 * held by its connection, whose reading pauses, until the writer has drained the queue under half its capacity:
 * {@link #waitForRoom}, woken by the writer thread a batch at a time). A write error fails the batch and marks the
 * sink degraded until a write succeeds.
 *
 * <p>A line is {@code {"ts","node","client","topic","qos","retain","payload"}} (payload in base64), followed by the
 * MQTT 5.0 properties the device sent: {@code payloadFormatIndicator} (1), {@code messageExpiryInterval} (seconds),
 * {@code contentType}, {@code responseTopic}, {@code correlationData} (base64) and {@code userProperties} (an array of
 * {@code {"name","value"}} in the order sent, repeated names kept).
 */
public final class JsonLinesFileSink implements UplinkSink {
    private static final Logger LOG = LoggerFactory.getLogger(JsonLinesFileSink.class);
    static final String CURRENT = "uplink.jsonl";
    private static final int BATCH = 1024;
    private static final DateTimeFormatter ROLLED =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private record Entry(UplinkMessage message, CompletableFuture<Void> done) {
    }

    private final Path dir;
    private final long maxFileSize;
    private final int maxFiles;
    private final String nodeId;
    private final ArrayBlockingQueue<Entry> queue;
    private final RoomWaiters waiters;
    private final Thread writer;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean closing;
    /** Set by the writer when it stops taking messages; from then on whoever sees it fails what is queued. */
    private volatile boolean writerDone;
    private volatile String lastError;
    private BufferedWriter text;
    private long size;
    private int rolls;

    public JsonLinesFileSink(Path dir, long maxFileSize, int maxFiles, int queueCapacity, String nodeId) {
        this.dir = dir;
        this.maxFileSize = maxFileSize;
        this.maxFiles = maxFiles;
        this.nodeId = nodeId;
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.waiters = new RoomWaiters(queueCapacity, queueCapacity / 2);
        try {
            Files.createDirectories(dir);
            open();
        } catch (IOException e) {
            throw new IllegalStateException("uplink.file.dir = " + dir + " is not a writable directory: " + e, e);
        }
        writer = new Thread(this::run, "uplink-file-writer");
        writer.setDaemon(true);
        writer.start();
    }

    /** Messages waiting for the writer. */
    public int queueDepth() {
        return queue.size();
    }

    @Override
    public double pressure() {
        return (double) queue.size() / (queue.size() + queue.remainingCapacity());
    }

    @Override
    public CompletionStage<Void> send(UplinkMessage message) {
        if (closing) {
            return CompletableFuture.failedFuture(new UplinkRejectedException("file sink closed"));
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!queue.offer(new Entry(message, done))) {
            return CompletableFuture.failedFuture(new UplinkRejectedException("file sink queue full", true));
        }
        if (writerDone) {
            // the writer left between the closing check and the offer: nobody else will complete this entry
            failQueued();
        }
        return done;
    }

    /** Each waiter needs one queue slot; the queue's length is the charge. */
    @Override
    public boolean waitForRoom(RoomWait wait, UplinkMessage refused) {
        waiters.add(wait, 1, queue.size());
        return true;
    }

    @Override
    public void endWait(RoomWait wait) {
        waiters.done(wait);
    }

    /** Connections waiting for room in the queue. */
    public int roomWaiters() {
        return waiters.waiting();
    }

    @Override
    public HealthStatus health() {
        String error = lastError;
        return error == null ? HealthStatus.UP : HealthStatus.degraded("file sink: " + error);
    }

    @Override
    public CompletionStage<Void> close() {
        closing = true;
        // waiters sending again now are refused as closed, which ends their wait
        waiters.wakeAll();
        writer.interrupt();
        return closed;
    }

    private void run() {
        List<Entry> batch = new ArrayList<>(BATCH);
        try {
            while (true) {
                if (queue.drainTo(batch, BATCH) == 0) {
                    if (closing) {
                        break;
                    }
                    try {
                        Entry first = queue.poll(100, TimeUnit.MILLISECONDS);
                        if (first == null) {
                            continue;
                        }
                        batch.add(first);
                        queue.drainTo(batch, BATCH - 1);
                    } catch (InterruptedException e) {
                        // close() interrupts to end the wait; the queue is drained before leaving
                        continue;
                    }
                }
                write(batch);
                batch.clear();
                waiters.released(queue.size());
            }
        } finally {
            writerDone = true;
            failQueued();
            try {
                text.close();
            } catch (IOException e) {
                LOG.warn("closing {} failed: {}", dir.resolve(CURRENT), e.toString());
            }
            closed.complete(null);
        }
    }

    private void failQueued() {
        for (Entry e = queue.poll(); e != null; e = queue.poll()) {
            e.done().completeExceptionally(new UplinkRejectedException("file sink closed"));
        }
    }

    private void write(List<Entry> batch) {
        try {
            StringBuilder line = new StringBuilder(256);
            for (Entry e : batch) {
                line.setLength(0);
                appendJson(line, e.message());
                line.append('\n');
                text.append(line);
                size += ByteBufUtil.utf8Bytes(line);
            }
            text.flush();
            lastError = null;
            batch.forEach(e -> e.done().complete(null));
            if (size >= maxFileSize) {
                roll();
            }
        } catch (IOException e) {
            lastError = e.toString();
            LOG.warn("writing {} messages to {} failed: {}", batch.size(), dir.resolve(CURRENT), e.toString());
            batch.forEach(x -> x.done().completeExceptionally(e));
        }
    }

    // Kept hand-written: one fixed line shape per message into a reused builder, no generator per line.
    // The MQTT 5.0 keys follow the payload and only when the device sent them, so a 3.1.1 line is what it always was.
    private void appendJson(StringBuilder b, UplinkMessage m) {
        b.append("{\"ts\":\"").append(Instant.ofEpochMilli(m.receivedAtMillis())).append("\",\"node\":");
        quote(b, nodeId);
        b.append(",\"client\":");
        quote(b, m.clientId());
        b.append(",\"topic\":");
        quote(b, m.topic());
        b.append(",\"qos\":").append(m.qos()).append(",\"retain\":").append(m.retain()).append(",\"payload\":\"")
                .append(Base64.getEncoder().encodeToString(m.payload())).append('"');
        appendProperties(b, m);
        b.append('}');
    }

    private static void appendProperties(StringBuilder b, UplinkMessage m) {
        MessageProperties p = m.properties();
        if (p.utf8Payload()) {
            b.append(",\"payloadFormatIndicator\":1");
        }
        if (m.expires()) {
            b.append(",\"messageExpiryInterval\":").append(m.expiryInterval());
        }
        if (p.contentType() != null) {
            b.append(",\"contentType\":");
            quote(b, p.contentType());
        }
        if (p.responseTopic() != null) {
            b.append(",\"responseTopic\":");
            quote(b, p.responseTopic());
        }
        if (p.correlationData() != null) {
            b.append(",\"correlationData\":\"").append(Base64.getEncoder().encodeToString(p.correlationData()))
                    .append('"');
        }
        if (!p.userProperties().isEmpty()) {
            // an array, not an object: MQTT keeps the order and lets a name repeat
            b.append(",\"userProperties\":[");
            for (int i = 0; i < p.userProperties().size(); i++) {
                MessageProperties.UserProperty u = p.userProperties().get(i);
                b.append(i == 0 ? "{\"name\":" : ",{\"name\":");
                quote(b, u.name());
                b.append(",\"value\":");
                quote(b, u.value());
                b.append('}');
            }
            b.append(']');
        }
    }

    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    private void open() throws IOException {
        Path current = dir.resolve(CURRENT);
        OutputStream out = Files.newOutputStream(current, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        text = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 64 * 1024);
        size = Files.size(current);
    }

    private void roll() throws IOException {
        text.close();
        // fixed-width names sort by age: uplink-20261122T014501.123Z-000001.jsonl
        String name = "uplink-" + ROLLED.format(Instant.now()) + String.format(Locale.ROOT, "-%06d",
                ++rolls % 1_000_000) + ".jsonl";
        Files.move(dir.resolve(CURRENT), dir.resolve(name));
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> rolled = files.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith("uplink-") && n.endsWith(".jsonl");
            }).sorted().toList();
            for (int i = 0; i < rolled.size() - maxFiles; i++) {
                Files.deleteIfExists(rolled.get(i));
            }
        }
        open();
    }
}
