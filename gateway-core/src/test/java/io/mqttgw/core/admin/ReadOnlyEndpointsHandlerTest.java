package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.HealthStatus;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReadOnlyEndpointsHandlerTest {
    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicReference<String> notReady = new AtomicReference<>();

    private EmbeddedChannel channel(String operationsRefusal) {
        HealthEndpoints health = new HealthEndpoints(notReady::get,
                List.of(new HealthCheck("uplink", () -> HealthStatus.UP)));
        return new EmbeddedChannel(new ReadOnlyEndpointsHandler(meters, health, new AdminMetrics(meters),
                operationsRefusal));
    }

    private static FullHttpResponse ask(EmbeddedChannel ch, HttpMethod method, String uri) {
        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.copiedBuffer("body", StandardCharsets.UTF_8)));
        return ch.readOutbound();
    }

    private static String body(FullHttpResponse r) {
        try {
            return r.content().toString(StandardCharsets.UTF_8);
        } finally {
            r.release();
        }
    }

    @Test
    void keepsLivenessUpWhileReadinessSaysWhyTheNodeTakesNoDevices() {
        EmbeddedChannel ch = channel("off");
        notReady.set("overloaded");
        FullHttpResponse ready = ask(ch, HttpMethod.GET, "/health/ready");
        assertEquals(503, ready.status().code());
        assertTrue(body(ready).contains("\"detail\":\"overloaded\"},\"uplink\""));
        FullHttpResponse alias = ask(ch, HttpMethod.GET, "/health");
        assertEquals(503, alias.status().code());
        alias.release();
        FullHttpResponse live = ask(ch, HttpMethod.GET, "/health/live");
        assertEquals(200, live.status().code());
        assertEquals("{\"status\":\"LIVE\"}\n", body(live));
        notReady.set(null);
        FullHttpResponse back = ask(ch, HttpMethod.GET, "/health/ready");
        assertEquals(200, back.status().code());
        assertTrue(body(back).endsWith("\"status\":\"UP\"}\n"));
        ch.finishAndReleaseAll();
    }

    @Test
    void writesComponentDetailsAsValidJsonWhateverCharactersTheyHold() throws Exception {
        String hostile = "broker \"b1\" down\\\n\u0001 caf\u00e9 </script>";
        HealthEndpoints health = new HealthEndpoints(() -> null,
                List.of(new HealthCheck("kafka \"uplink\"", () -> HealthStatus.degraded(hostile))));
        FullHttpResponse ready = health.ready();
        assertEquals(200, ready.status().code());
        String body = body(ready);
        assertTrue(body.endsWith("}\n") && body.indexOf('\n') == body.length() - 1, "one line: " + body);
        try (JsonParser p = new JsonFactory().createParser(body)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals("checks", p.nextFieldName());
            p.nextToken();
            assertEquals("listeners", p.nextFieldName());
            p.nextToken();
            p.skipChildren();
            assertEquals("kafka \"uplink\"", p.nextFieldName());
            p.nextToken();
            assertEquals("up", p.nextFieldName());
            assertEquals(JsonToken.VALUE_FALSE, p.nextToken());
            assertEquals("detail", p.nextFieldName());
            assertEquals(hostile, p.nextTextValue());
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertEquals("status", p.nextFieldName());
            assertEquals("DEGRADED", p.nextTextValue());
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertNull(p.nextToken());
        }
    }

    @Test
    void refusesOperationsWhenTheyAreNotServedHereAndUnknownPathsWithJson() {
        EmbeddedChannel ch = channel("operations endpoints are off");
        FullHttpResponse ops = ask(ch, HttpMethod.POST, "/downlink/broadcast?topic=a&retain=true");
        assertEquals(404, ops.status().code());
        assertEquals("{\"error\":\"operations endpoints are off\"}\n", body(ops));
        assertNull(ch.readInbound(), "nothing goes on to operations");
        FullHttpResponse unknown = ask(ch, HttpMethod.GET, "/admin");
        assertEquals(404, unknown.status().code());
        unknown.release();
        FullHttpResponse post = ask(ch, HttpMethod.POST, "/metrics");
        assertEquals(405, post.status().code());
        post.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void passesOperationsOnWhenTheyShareThisListener() {
        EmbeddedChannel ch = channel(null);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/downlink?client=d&topic=t");
        ch.writeInbound(request);
        assertEquals(request, ch.readInbound());
        assertNull(ch.readOutbound());
        request.release();
        ch.finishAndReleaseAll();
    }
}
