package io.mqttgw.bench.sim.worker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The JSON lines a worker process prints on stdout and the coordinator reads: {@code ready}, {@code stats} (one a
 * second per worker), {@code dropped} and {@code error}. Written and read with Jackson's streaming API, field by
 * field into a {@link WorkerReport}, so a stats line builds no intermediate map. Stateless; the factory is
 * thread-safe.
 */
public final class WorkerLines {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private WorkerLines() {
    }

    /** One line from a worker: its type and worker index, and the stats or the message where the type has one. */
    public record Line(String type, int worker, WorkerReport stats, String message, long count) {
    }

    public static String ready(int worker, int devices, String transport) {
        return write(g -> {
            head(g, "ready", worker);
            g.writeNumberField("devices", devices);
            g.writeStringField("transport", transport);
        });
    }

    public static String dropped(int worker, int count) {
        return write(g -> {
            head(g, "dropped", worker);
            g.writeNumberField("count", count);
        });
    }

    public static String error(int worker, String message) {
        return write(g -> {
            head(g, "error", worker);
            g.writeStringField("message", message);
        });
    }

    public static String stats(WorkerReport r) {
        return write(g -> {
            head(g, "stats", r.worker());
            g.writeNumberField("t", r.timeMillis());
            g.writeNumberField("devices", r.devices());
            g.writeNumberField("connected", r.connected());
            g.writeNumberField("connecting", r.connecting());
            g.writeNumberField("handshakesFull", r.handshakesFull());
            g.writeNumberField("handshakesResumed", r.handshakesResumed());
            g.writeNumberField("connacks", r.connacks());
            g.writeNumberField("lastConnackMillis", r.lastConnackMillis());
            g.writeNumberField("startsMissed", r.startsMissed());
            g.writeObjectFieldStart("failures");
            for (Map.Entry<String, Long> e : r.failures().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeNumberField("published", r.published());
            g.writeNumberField("publishedQos1", r.publishedQos1());
            g.writeNumberField("acked", r.acked());
            g.writeNumberField("pings", r.pings());
            g.writeNumberField("dropped", r.dropped());
            g.writeNumberField("unexpectedDisconnects", r.unexpectedDisconnects());
            g.writeNumberField("subscribed", r.subscribed());
            g.writeNumberField("rssBytes", r.rssBytes());
            g.writeStringField("ackLatency", encode(r.ackLatency()));
            g.writeStringField("connectLatency", encode(r.connectLatency()));
            g.writeObjectFieldStart("fleet");
            for (Map.Entry<String, Long> e : r.fleet().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeStringField("pingLatency", encode(r.pingLatency()));
        });
    }

    /** Reads one line; unknown fields are skipped. A line that is not such an object is an IllegalArgumentException. */
    public static Line parse(String line) {
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            String type = null;
            String message = null;
            long[] n = new long[Field.values().length];
            Map<String, Long> failures = new TreeMap<>();
            Histogram ack = null;
            Histogram connect = null;
            Histogram ping = null;
            Map<String, Long> fleet = new TreeMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "type" -> type = p.getText();
                    case "message" -> message = p.getText();
                    case "ackLatency" -> ack = decode(p.getText());
                    case "connectLatency" -> connect = decode(p.getText());
                    case "pingLatency" -> ping = decode(p.getText());
                    case "failures" -> counters(p, failures);
                    case "fleet" -> counters(p, fleet);
                    default -> {
                        Field f = Field.of(name);
                        if (f != null && value.isNumeric()) {
                            n[f.ordinal()] = p.getLongValue();
                        } else {
                            p.skipChildren();
                        }
                    }
                }
            }
            if (type == null) {
                throw new IllegalArgumentException("no type");
            }
            int worker = (int) n[Field.WORKER.ordinal()];
            WorkerReport stats = !type.equals("stats") ? null : new WorkerReport(worker, n[Field.T.ordinal()],
                    (int) n[Field.DEVICES.ordinal()], (int) n[Field.CONNECTED.ordinal()],
                    (int) n[Field.CONNECTING.ordinal()], n[Field.HANDSHAKES_FULL.ordinal()],
                    n[Field.HANDSHAKES_RESUMED.ordinal()], n[Field.CONNACKS.ordinal()],
                    n[Field.LAST_CONNACK_MILLIS.ordinal()], n[Field.STARTS_MISSED.ordinal()], failures,
                    n[Field.PUBLISHED.ordinal()], n[Field.PUBLISHED_QOS1.ordinal()], n[Field.ACKED.ordinal()],
                    n[Field.PINGS.ordinal()], n[Field.DROPPED.ordinal()], n[Field.UNEXPECTED_DISCONNECTS.ordinal()],
                    n[Field.SUBSCRIBED.ordinal()], n[Field.RSS_BYTES.ordinal()],
                    ack == null ? new Histogram(3) : ack, connect == null ? new Histogram(3) : connect, fleet,
                    ping == null ? new Histogram(3) : ping);
            return new Line(type, worker, stats, message, n[Field.COUNT.ordinal()]);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static void counters(JsonParser p, Map<String, Long> into) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            p.nextToken();
            into.put(key, p.getLongValue());
        }
    }

    /** The numeric fields of the lines, by JSON name. */
    private enum Field {
        WORKER("worker"), T("t"), DEVICES("devices"), CONNECTED("connected"), CONNECTING("connecting"),
        HANDSHAKES_FULL("handshakesFull"), HANDSHAKES_RESUMED("handshakesResumed"), CONNACKS("connacks"),
        LAST_CONNACK_MILLIS("lastConnackMillis"), STARTS_MISSED("startsMissed"),
        PUBLISHED("published"), PUBLISHED_QOS1("publishedQos1"), ACKED("acked"), PINGS("pings"),
        DROPPED("dropped"), UNEXPECTED_DISCONNECTS("unexpectedDisconnects"), SUBSCRIBED("subscribed"),
        RSS_BYTES("rssBytes"), COUNT("count");

        private static final Map<String, Field> BY_NAME = new TreeMap<>();

        static {
            for (Field f : values()) {
                BY_NAME.put(f.json, f);
            }
        }

        private final String json;

        Field(String json) {
            this.json = json;
        }

        static Field of(String name) {
            return BY_NAME.get(name);
        }
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private static String write(Body body) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            body.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void head(JsonGenerator g, String type, int worker) throws IOException {
        g.writeStringField("type", type);
        g.writeNumberField("worker", worker);
    }

    static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }

    static Histogram decode(String s) {
        if (s == null || s.isEmpty()) {
            return new Histogram(3);
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(s)), 0);
        } catch (DataFormatException | IllegalArgumentException e) {
            throw new IllegalArgumentException("bad histogram in worker report", e);
        }
    }
}
