package io.mqttgw.core.admin;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import io.mqttgw.core.spi.Subscription;
import java.util.Locale;
import java.util.Map;

/**
 * The operator API's JSON bodies (schema in README "Operator API"), written with Jackson's streaming generator
 * straight into the response buffer. Times are ISO-8601 UTC strings. Stateless; any thread.
 */
final class OperatorJson {
    private static final JsonFactory JSON = new JsonFactory();

    /** Writes one JSON document. */
    @FunctionalInterface
    interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private OperatorJson() {
    }

    static FullHttpResponse response(HttpResponseStatus status, Body body) {
        ByteBuf content = Unpooled.buffer(256);
        try (JsonGenerator g = JSON.createGenerator((java.io.OutputStream) new ByteBufOutputStream(content),
                JsonEncoding.UTF8)) {
            body.write(g);
            g.writeRaw('\n');
        } catch (IOException e) {
            content.release();
            // a heap buffer cannot fail to take bytes; only a bug in a writer gets here
            throw new UncheckedIOException(e);
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, AdminResponses.JSON)
                .set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        return r;
    }

    /** {@code {"error": reason}}, plus {@code "node"} when another node holds what was asked for. */
    static FullHttpResponse error(HttpResponseStatus status, String reason, String node) {
        return response(status, g -> {
            g.writeStartObject();
            g.writeStringField("error", reason);
            if (node != null) {
                g.writeStringField("node", node);
            }
            g.writeEndObject();
        });
    }

    static Body page(String node, List<Route> clients, String nextCursor) {
        return g -> {
            g.writeStartObject();
            g.writeStringField("node", node);
            g.writeArrayFieldStart("clients");
            for (Route r : clients) {
                g.writeStartObject();
                g.writeStringField("clientId", r.clientId());
                g.writeStringField("remoteAddress", r.remoteAddress());
                g.writeStringField("connectedSince", time(r.connectedAtMillis()));
                g.writeStringField("proof", proof(r));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("nextCursor", nextCursor);
            g.writeEndObject();
        };
    }

    static Body client(ClientDetails c) {
        return g -> {
            g.writeStartObject();
            g.writeStringField("clientId", c.clientId());
            g.writeStringField("node", c.nodeId());
            g.writeBooleanField("local", true);
            g.writeStringField("listener", c.listener());
            g.writeStringField("remoteAddress", c.remoteAddress());
            g.writeStringField("connectedSince", time(c.connectedAtMillis()));
            g.writeStringField("protocol", c.protocol());
            g.writeNumberField("keepAliveSeconds", c.keepAliveSeconds());
            g.writeStringField("proof", c.proof());
            if (c.certificateNotAfterMillis() >= 0) {
                g.writeObjectFieldStart("certificate");
                g.writeStringField("identity", c.certificateIdentity());
                g.writeStringField("notAfter", time(c.certificateNotAfterMillis()));
                g.writeStringField("sha256", c.certificateSha256());
                g.writeEndObject();
            } else {
                g.writeNullField("certificate");
            }
            g.writeBooleanField("persistentSession", c.persistentSession());
            subscriptions(g, c.subscriptions());
            g.writeObjectFieldStart("inflight");
            g.writeNumberField("uplink", c.uplinkInflight());
            g.writeNumberField("uplinkAwaitingRelease", c.uplinkAwaitingRelease());
            g.writeNumberField("downlink", c.downlinkInflight());
            g.writeNumberField("downlinkQueued", c.downlinkQueued());
            g.writeEndObject();
            g.writeEndObject();
        };
    }

    /** A client another node holds, as the shared route table knows it. */
    static Body remoteClient(Route r) {
        return g -> {
            g.writeStartObject();
            g.writeStringField("clientId", r.clientId());
            g.writeStringField("node", r.nodeId());
            g.writeBooleanField("local", false);
            g.writeStringField("remoteAddress", r.remoteAddress());
            g.writeStringField("connectedSince", time(r.connectedAtMillis()));
            g.writeStringField("proof", proof(r));
            g.writeEndObject();
        };
    }

    static Body kicked(String clientId, String node, boolean sessionDiscarded) {
        return g -> {
            g.writeStartObject();
            g.writeStringField("clientId", clientId);
            g.writeStringField("node", node);
            g.writeBooleanField("kicked", true);
            g.writeBooleanField("sessionDiscarded", sessionDiscarded);
            g.writeEndObject();
        };
    }

    static Body session(String clientId, String proof, SessionStore.SessionSummary s) {
        return g -> {
            g.writeStartObject();
            g.writeStringField("clientId", clientId);
            g.writeStringField("proof", proof);
            g.writeBooleanField("connected", s.connected());
            g.writeStringField("expiresAt", s.expiresAtMillis() == 0 ? null : time(s.expiresAtMillis()));
            subscriptions(g, s.subscriptions());
            g.writeNumberField("pending", s.pending());
            g.writeEndObject();
        };
    }

    private static void subscriptions(JsonGenerator g, Map<String, Subscription> subscriptions) throws IOException {
        g.writeArrayFieldStart("subscriptions");
        for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
            Subscription sub = e.getValue();
            g.writeStartObject();
            g.writeStringField("filter", e.getKey());
            g.writeNumberField("qos", sub.qos());
            if (!sub.qosOnly()) {
                // MQTT 5.0 subscription options, only where the device set them
                g.writeBooleanField("retainAsPublished", sub.retainAsPublished());
                g.writeNumberField("retainHandling", sub.retainHandling());
                if (sub.identifier() > 0) {
                    g.writeNumberField("subscriptionIdentifier", sub.identifier());
                }
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static String proof(Route r) {
        return r.proof().name().toLowerCase(Locale.ROOT);
    }

    private static String time(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }
}
