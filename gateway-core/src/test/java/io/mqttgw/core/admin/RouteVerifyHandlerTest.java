package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.testkit.InertRouteStore;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class RouteVerifyHandlerTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** A route store whose check answers what the test says, and remembers whether repair was asked. */
    private static final class FakeStore extends InertRouteStore {
        final CompletableFuture<RouteCheck> answer = new CompletableFuture<>();
        Boolean repairAsked;

        @Override
        public CompletionStage<RouteCheck> verify(boolean repair) {
            repairAsked = repair;
            return answer;
        }
    }

    private EmbeddedChannel channel(RouteStore store) {
        OperatorApi api = new OperatorApi("node-1", null, store, null, null, 64, null, null);
        return new EmbeddedChannel(new RouteVerifyHandler(api, new AdminMetrics(meters), new EventLog(10)));
    }

    private static DefaultFullHttpRequest post(String uri) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri);
    }

    private static String body(FullHttpResponse r) {
        try {
            return r.content().toString(StandardCharsets.UTF_8);
        } finally {
            r.release();
        }
    }

    @Test
    void answersOnceTheCheckCompletesWithTheDifferences() {
        FakeStore store = new FakeStore();
        EmbeddedChannel ch = channel(store);
        ch.writeInbound(post("/routes/verify?repair=true"));
        assertTrue(store.repairAsked);
        assertNull(ch.readOutbound(), "nothing before the check is done");
        store.answer.complete(new RouteCheck("node-1", true, 3, 2, 10, List.of(new RouteCheck.Difference(
                RouteCheck.Kind.MISSING, "dev-1", null, 0, 42, true)), 1, 1, 5));
        ch.runPendingTasks();
        FullHttpResponse r = ch.readOutbound();
        assertEquals(200, r.status().code());
        String json = body(r);
        assertTrue(json.contains("\"kind\":\"missing\"") && json.contains("\"clientId\":\"dev-1\"")
                && json.contains("\"liveEpoch\":42") && json.contains("\"repaired\":true"), json);
        assertEquals(1.0, meters.get("mqttgw.admin.requests").tag("endpoint", "routes_verify").tag("result", "ok")
                .counter().count());
        ch.finishAndReleaseAll();
    }

    @Test
    void answersConflictWhileAnotherCheckRuns() {
        FakeStore store = new FakeStore();
        store.answer.completeExceptionally(new RouteCheck.AlreadyRunning());
        EmbeddedChannel ch = channel(store);
        ch.writeInbound(post("/routes/verify"));
        FullHttpResponse r = ch.readOutbound();
        assertEquals(409, r.status().code(), body(r));
        assertEquals(Boolean.FALSE, store.repairAsked);
        ch.finishAndReleaseAll();
    }

    @Test
    void answersUnavailableWhileTheStoreIsNotConnected() {
        FakeStore store = new FakeStore();
        store.answer.completeExceptionally(new IllegalStateException("redis route table not connected yet"));
        EmbeddedChannel ch = channel(store);
        ch.writeInbound(post("/routes/verify"));
        FullHttpResponse r = ch.readOutbound();
        assertEquals(503, r.status().code(), body(r));
        ch.finishAndReleaseAll();
    }

    @Test
    void answersNotImplementedForAStoreThatCannotCheck() {
        EmbeddedChannel ch = channel(new InertRouteStore());
        ch.writeInbound(post("/routes/verify"));
        FullHttpResponse r = ch.readOutbound();
        assertEquals(501, r.status().code(), body(r));
        ch.finishAndReleaseAll();
    }

    @Test
    void refusesUnknownParametersWithoutStartingACheck() {
        FakeStore store = new FakeStore();
        EmbeddedChannel ch = channel(store);
        ch.writeInbound(post("/routes/verify?repair=true&fast=1"));
        FullHttpResponse r = ch.readOutbound();
        assertEquals(400, r.status().code(), body(r));
        assertNull(store.repairAsked);
        ch.finishAndReleaseAll();
    }
}
