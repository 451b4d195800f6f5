package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OperatorAuthHandlerTest {
    private static final String TOKEN = "t".repeat(40);

    @TempDir
    Path dir;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private EmbeddedChannel channel() throws Exception {
        Path file = Files.writeString(dir.resolve("tokens"), "ops:" + TOKEN + "\n");
        OperatorCredentials credentials = OperatorCredentials.load(new GatewayConfig.Operations(file, "127.0.0.1",
                -1, null, null, null, 1024));
        return new EmbeddedChannel(new OperatorAuthHandler(credentials, new AdminMetrics(meters), new EventLog(10)));
    }

    private static HttpRequest request(String authorization) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/downlink?client=d&topic=t");
        if (authorization != null) {
            r.headers().set("Authorization", authorization);
        }
        return r;
    }

    @Test
    void refusesAWrongTokenWith401ClosesAndReleasesTheBody() throws Exception {
        EmbeddedChannel ch = channel();
        DefaultHttpContent part = new DefaultHttpContent(Unpooled.copiedBuffer("abc", StandardCharsets.UTF_8));
        DefaultLastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.UTF_8));
        // the body arrives in the same read as the head, before the close takes effect
        ch.writeInbound(request("Bearer " + "x".repeat(40)), part, last);
        assertNull(ch.readInbound(), "nothing of a refused request goes on");
        assertEquals(0, part.refCnt());
        assertEquals(0, last.refCnt());
        FullHttpResponse response = ch.readOutbound();
        assertEquals(401, response.status().code());
        assertTrue(response.headers().get("WWW-Authenticate").startsWith("Bearer"));
        assertEquals("{\"error\":\"invalid bearer token\"}\n", response.content().toString(StandardCharsets.UTF_8));
        response.release();
        assertFalse(ch.isOpen(), "closed after the refusal");
        assertEquals(1.0, meters.get("mqttgw.admin.requests").tag("endpoint", "downlink")
                .tag("result", "unauthorized").counter().count());
    }

    @Test
    void refusesARequestWithoutABearerToken() throws Exception {
        for (String header : new String[] {null, "Basic b3BzOnNlY3JldA==", "Bearer", "Bearer "}) {
            EmbeddedChannel ch = channel();
            ch.writeInbound(request(header));
            FullHttpResponse response = ch.readOutbound();
            assertEquals(401, response.status().code(), String.valueOf(header));
            response.release();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void passesAnAcceptedRequestOnNamingTheOperator() throws Exception {
        EmbeddedChannel ch = channel();
        HttpRequest request = request("bearer " + TOKEN);
        ch.writeInbound(request);
        assertEquals(request, ch.readInbound());
        assertEquals("token:ops", ch.attr(OperatorAuthHandler.OPERATOR).get());
        assertNull(ch.readOutbound());
        assertFalse(ch.finish());
    }
}
