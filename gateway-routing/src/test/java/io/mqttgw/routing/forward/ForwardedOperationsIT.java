package io.mqttgw.routing.forward;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.core.testkit.MqttBytes;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisNodes;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.redisson.api.RTopic;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;

/**
 * Operator operations sent to a node that does not hold the device, on two nodes sharing a real redis-server: the
 * downlink and the kick reach the device on the node that holds it and are answered with that node's outcome and id;
 * the asking node authenticates the operator as before; a holder that never answers costs a 504 within the bound,
 * and the bounds on requests waiting (asking node) and running (holder) answer 503.
 */
class ForwardedOperationsIT extends RedisNodes {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long a loaded 2-core machine may take for what takes milliseconds when idle. */
    private static final long PATIENCE_MILLIS = 20_000;

    private static TestGateway node(String id) throws Exception {
        Path home = Files.createDirectories(dir.resolve(id));
        return redisNode(id).with("session.provider", "redis").withOperatorToken(home);
    }

    @Test
    void downlinkPostedToANodeThatDoesNotHoldTheDeviceIsDeliveredByTheHolder() throws Exception {
        try (Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            List<byte[]> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-fwd").buildAsync();
            device.connectWith().cleanSession(false).send().join();
            device.subscribeWith().topicFilter("devices/dev-fwd/cmd").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> received.add(p.getPayloadAsBytes())).send().join();
            awaitRoute(b, "dev-fwd", "node-a");

            // every byte value, and not UTF-8: the payload must cross Redis as it is
            byte[] payload = new byte[256];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = (byte) i;
            }
            HttpResponse<String> onB = send(b, "POST", "/downlink?client=dev-fwd&topic=devices/dev-fwd/cmd&qos=1",
                    payload, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, onB.statusCode(), onB.body());
            JsonNode answer = JSON.readTree(onB.body());
            assertEquals("delivered", answer.get("outcome").asText(), onB.body());
            assertEquals("node-a", answer.get("node").asText(), onB.body());
            awaitCount(received, 1);
            assertArrayEquals(payload, received.get(0));
            assertEquals(0, JSON.readTree(send(b, "GET", "/sessions/dev-fwd", null, TestGateway.OPERATOR_TOKEN)
                    .body()).get("pending").asInt(), "nothing queued for a device that is online elsewhere");

            HttpResponse<String> unsubscribed = send(b, "POST", "/downlink?client=dev-fwd&topic=other/topic&qos=1",
                    new byte[] {1}, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, unsubscribed.statusCode(), unsubscribed.body());
            assertEquals("not_subscribed", JSON.readTree(unsubscribed.body()).get("outcome").asText(),
                    "the holder's own outcome, whatever it is");
            device.disconnect().join();
        }
    }

    @Test
    void kickSentToANodeThatDoesNotHoldTheDeviceClosesItOnTheHolder() throws Exception {
        try (Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-kick").buildAsync();
            device.connectWith().cleanSession(true).send().join();
            awaitRoute(b, "dev-kick", "node-a");

            HttpResponse<String> kick = send(b, "DELETE", "/clients/dev-kick", null, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, kick.statusCode(), kick.body());
            JsonNode answer = JSON.readTree(kick.body());
            assertTrue(answer.get("kicked").asBoolean(), kick.body());
            assertEquals("node-a", answer.get("node").asText(), kick.body());
            // the holder answers once the channel is closed: the device sees it soon after
            long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
            while (device.getState() == MqttClientState.CONNECTED && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(MqttClientState.DISCONNECTED, device.getState());
            assertEquals(404, send(a, "GET", "/clients/dev-kick", null, TestGateway.OPERATOR_TOKEN).statusCode(),
                    "node A holds it no more");
        }
    }

    @Test
    void holderWritesAnAuditLineForEachForwardedOperationJoinedToTheAskersByCorrelationId() throws Exception {
        try (EventLogCapture log = new EventLogCapture();
             Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            List<byte[]> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-audit").buildAsync();
            device.connectWith().cleanSession(true).send().join();
            device.subscribeWith().topicFilter("devices/dev-audit/cmd").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> received.add(p.getPayloadAsBytes())).send().join();
            awaitRoute(b, "dev-audit", "node-a");

            HttpResponse<String> downlink = send(b, "POST", "/downlink?client=dev-audit&topic=devices/dev-audit/cmd"
                    + "&qos=1", new byte[] {1, 2, 3}, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, downlink.statusCode(), downlink.body());
            String asked = awaitLine(log, l -> l.startsWith("operation operator=") && l.contains("downlink "
                    + "client=dev-audit") && l.contains("via node node-a"));
            String correlation = correlationOf(asked);
            String held = awaitLine(log, l -> l.startsWith("operation forwarded from=node-b correlation="
                    + correlation + " "));
            assertTrue(held.contains("what=downlink client=dev-audit topic=devices/dev-audit/cmd qos=1"), held);
            assertTrue(held.endsWith("outcome=delivered"), held);

            HttpResponse<String> kick = send(b, "DELETE", "/clients/dev-audit", null, TestGateway.OPERATOR_TOKEN);
            assertEquals(200, kick.statusCode(), kick.body());
            String kickAsked = awaitLine(log, l -> l.startsWith("operation operator=")
                    && l.contains("DELETE /clients/dev-audit via node node-a"));
            String kickCorrelation = correlationOf(kickAsked);
            assertTrue(!kickCorrelation.equals(correlation), "one id per request: " + kickAsked);
            String kickHeld = awaitLine(log, l -> l.startsWith("operation forwarded from=node-b correlation="
                    + kickCorrelation + " "));
            assertTrue(kickHeld.contains("what=kick client=dev-audit"), kickHeld);
            assertTrue(kickHeld.endsWith("outcome=kicked"), kickHeld);
            assertEquals(2, log.lines().stream().filter(l -> l.startsWith("operation forwarded ")).count(),
                    "one line on the holder per forwarded operation: " + log.lines());
        }
    }

    @Test
    void routeNamingANodeThatDoesNotRunIsAnsweredAtOnceNotAfterTheBound() throws Exception {
        // the route outlives its node (crashed, its route not expired yet): nobody listens on its channel
        plantRoute("dev-ghost", "node-ghost");
        // bound of a forwarded downlink: retry-interval x (max-retries + 1) = 30 s; a kick's is 10 s
        try (Gateway b = node("node-b").with("downlink.retry-interval", "10s").with("downlink.max-retries", "2")
                .start()) {
            awaitForwarding(b);
            long started = System.nanoTime();
            HttpResponse<String> downlink = send(b, "POST", "/downlink?client=dev-ghost&topic=t/cmd&qos=1",
                    new byte[] {7}, TestGateway.OPERATOR_TOKEN);
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(503, downlink.statusCode(), downlink.body());
            JsonNode answer = JSON.readTree(downlink.body());
            assertEquals("node-ghost", answer.get("node").asText(), downlink.body());
            assertTrue(answer.get("error").asText().contains("not delivered"), downlink.body());
            assertTrue(tookMillis < 10_000, "answered without waiting the 30 s bound: " + tookMillis + " ms");

            HttpResponse<String> kick = send(b, "DELETE", "/clients/dev-ghost", null, TestGateway.OPERATOR_TOKEN);
            // the kick's bound would end in a 504: a 503 is the answer that did not wait for it
            assertEquals(503, kick.statusCode(), kick.body());
            assertEquals("node-ghost", JSON.readTree(kick.body()).get("node").asText(), kick.body());
            assertTrue(kick.body().contains("not delivered"), kick.body());
            String metrics = send(b, "GET", "/metrics", null, null).body();
            assertTrue(metrics.lines().anyMatch(l -> l.startsWith("mqttgw_operations_forwarded_messages_total{")
                    && l.contains("result=\"unreachable\"") && l.endsWith("} 2.0")), metrics);
        } finally {
            check.getKeys().delete("mqttgw:route:{dev-ghost}");
        }
    }

    /**
     * Waits until {@code node} reads routes and hears replies: a node just started may answer 503 for either, which a
     * test of a 503 must not take for its own.
     */
    private static void awaitForwarding(Gateway node) throws Exception {
        plantRoute("dev-probe", "node-probe");
        RTopic probe = check.getTopic("mqttgw:ops:{node-probe}", ByteArrayCodec.INSTANCE);
        // answers every request at once as "no longer held there": a 409 proves the round trip works
        int listener = probe.addListener(byte[].class, (channel, m) -> {
            ForwardCodec.Request request = ForwardCodec.request(m);
            check.getTopic("mqttgw:ops-reply:{" + request.replyTo() + "}", ByteArrayCodec.INSTANCE)
                    .publishAsync(ForwardCodec.notHere(request.id(), "node-probe"));
        });
        try {
            long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
            HttpResponse<String> r;
            do {
                r = send(node, "POST", "/downlink?client=dev-probe&topic=t/cmd&qos=1", new byte[] {1},
                        TestGateway.OPERATOR_TOKEN);
                if (r.statusCode() == 409) {
                    return;
                }
                Thread.sleep(50);
            } while (System.currentTimeMillis() < deadline);
            throw new AssertionError("node does not forward yet: " + r.body());
        } finally {
            probe.removeListener(listener);
            check.getKeys().delete("mqttgw:route:{dev-probe}");
        }
    }

    private static String awaitLine(EventLogCapture log, Predicate<String> wanted) throws InterruptedException {
        long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
        do {
            for (String line : log.lines()) {
                if (wanted.test(line)) {
                    return line;
                }
            }
            Thread.sleep(20);
        } while (System.currentTimeMillis() < deadline);
        throw new AssertionError("no such line in " + log.lines());
    }

    private static String correlationOf(String line) {
        Matcher m = Pattern.compile("correlation=([0-9a-f]{16})").matcher(line);
        assertTrue(m.find(), "the asking node's line carries the correlation id: " + line);
        return m.group(1);
    }

    @Test
    void forwardingNodeRefusesOperatorsWithoutTheRightToken() throws Exception {
        try (Gateway a = node("node-a").start(); Gateway b = node("node-b").start()) {
            List<byte[]> received = new CopyOnWriteArrayList<>();
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, a.tlsPort(), "dev-auth").buildAsync();
            device.connectWith().cleanSession(true).send().join();
            device.subscribeWith().topicFilter("devices/dev-auth/cmd").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> received.add(p.getPayloadAsBytes())).send().join();
            awaitRoute(b, "dev-auth", "node-a");
            String downlink = "/downlink?client=dev-auth&topic=devices/dev-auth/cmd&qos=1";

            assertEquals(401, send(b, "POST", downlink, new byte[] {1}, null).statusCode());
            assertEquals(401, send(b, "POST", downlink, new byte[] {1}, "wrong-" + TestGateway.OPERATOR_TOKEN)
                    .statusCode());
            assertEquals(401, send(b, "DELETE", "/clients/dev-auth", null, null).statusCode());
            assertEquals(401, send(b, "DELETE", "/clients/dev-auth", null, "wrong-" + TestGateway.OPERATOR_TOKEN)
                    .statusCode());

            // a request that is let through afterwards is answered: the refused ones were not merely slow
            assertEquals(200, send(b, "POST", downlink, new byte[] {2}, TestGateway.OPERATOR_TOKEN).statusCode());
            awaitCount(received, 1);
            Thread.sleep(200);
            assertEquals(1, received.size(), "only the authenticated downlink reached the device");
            assertArrayEquals(new byte[] {2}, received.get(0));
            assertEquals(MqttClientState.CONNECTED, device.getState(), "no refused kick closed it");
            device.disconnect().join();
        }
    }

    @Test
    void holderThatNeverAnswersCostsA504NamingItWithinTheDownlinkBound() throws Exception {
        // the route names a node that received the request and died before answering: a subscriber that stays silent
        plantRoute("dev-orphan", "node-gone");
        List<byte[]> heard = new CopyOnWriteArrayList<>();
        RTopic gone = check.getTopic("mqttgw:ops:{node-gone}", ByteArrayCodec.INSTANCE);
        int listener = gone.addListener(byte[].class, (channel, m) -> heard.add(m));
        // bound: retry-interval x (max-retries + 1) = 2 s
        try (Gateway b = node("node-b").with("downlink.retry-interval", "1s").with("downlink.max-retries", "1")
                .start()) {
            awaitForwarding(b);
            long started = System.nanoTime();
            HttpResponse<String> onB = send(b, "POST", "/downlink?client=dev-orphan&topic=t/cmd&qos=1",
                    new byte[] {7}, TestGateway.OPERATOR_TOKEN);
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(504, onB.statusCode(), onB.body());
            assertEquals("node-gone", JSON.readTree(onB.body()).get("node").asText(), onB.body());
            assertTrue(tookMillis >= 1_900, "waited the bound, not less: " + tookMillis + " ms");
            assertTrue(tookMillis < 2_000 + PATIENCE_MILLIS, "answered within the bound: " + tookMillis + " ms");
            assertEquals(1, heard.size(), "the request reached the holder's channel once");
            // read as the README describes it: version, kind, correlation id, timeout, asking node, message
            ByteBuffer request = ByteBuffer.wrap(heard.get(0));
            assertEquals(1, request.get(), "version");
            assertEquals('D', request.get(), "a downlink");
            request.getLong();
            assertEquals(2_000, request.getInt(), "the holder gives up when the asking node does");
            byte[] replyTo = new byte[request.getShort()];
            request.get(replyTo);
            assertEquals("node-b", new String(replyTo, StandardCharsets.UTF_8));
            assertEquals(7, heard.get(0)[heard.get(0).length - 1], "the payload last");
        } finally {
            gone.removeListener(listener);
            check.getKeys().delete("mqttgw:route:{dev-orphan}");
        }
    }

    @Test
    void askingNodeRefusesBusyAtOnceWhenItsBoundOfWaitingRequestsIsReached() throws Exception {
        plantRoute("dev-silent", "node-mute");
        List<byte[]> heard = new CopyOnWriteArrayList<>();
        RTopic mute = check.getTopic("mqttgw:ops:{node-mute}", ByteArrayCodec.INSTANCE);
        int listener = mute.addListener(byte[].class, (channel, m) -> heard.add(m));
        try (Gateway b = node("node-b").with("routes.redis.forward-max-in-flight", "1")
                .with("downlink.retry-interval", "3s").with("downlink.max-retries", "1").start()) {
            awaitForwarding(b);
            String downlink = "/downlink?client=dev-silent&topic=t/cmd&qos=1";
            CompletableFuture<HttpResponse<String>> first = sendAsync(b, downlink);
            long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
            while (heard.isEmpty() && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, heard.size(), "the first request is out and waits");
            HttpResponse<String> second = send(b, "POST", downlink, new byte[] {1}, TestGateway.OPERATOR_TOKEN);
            assertEquals(503, second.statusCode(), second.body());
            assertTrue(second.body().contains("forward-max-in-flight"), second.body());
            assertEquals(1, heard.size(), "the refused request was not sent");
            assertEquals(504, first.get().statusCode(), first.get().body());
        } finally {
            mute.removeListener(listener);
            check.getKeys().delete("mqttgw:route:{dev-silent}");
        }
    }

    /** The device's client acknowledges after its callback ran: wait for the callback rather than assume it. */
    private static void awaitCount(List<byte[]> received, int count) throws InterruptedException {
        long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
        while (received.size() < count && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(count, received.size());
    }

    @Test
    void holderRefusesBusyPastItsBoundOfForwardedRequestsRunningAndAuditsTheRefusal() throws Exception {
        // the holder's bound is 1; the asking node's bound is 4 s, the holder's own retries take longer
        try (EventLogCapture log = new EventLogCapture();
             Gateway a = node("node-a").with("routes.redis.forward-max-in-flight", "1")
                .with("downlink.retry-interval", "10s").start();
             Gateway b = node("node-b").with("downlink.retry-interval", "2s").with("downlink.max-retries", "1")
                     .start();
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("dev-slow")),
                     a.tlsPort())) {
            assertEquals(0, device.connect("dev-slow", 60));
            device.send(new MqttBytes().u16(1).string("devices/dev-slow/cmd").u8(1).packet(0x82));
            assertEquals(0x90, device.readPacket()[0] & 0xF0, "SUBACK");
            awaitRoute(b, "dev-slow", "node-a");
            String downlink = "/downlink?client=dev-slow&topic=devices/dev-slow/cmd&qos=1";

            CompletableFuture<HttpResponse<String>> first = sendAsync(b, downlink);
            // the device gets the first message and never acknowledges it: the holder's one slot stays taken
            assertEquals(0x30, device.readPacket()[0] & 0xF0, "PUBLISH");
            HttpResponse<String> second = send(b, "POST", downlink, new byte[] {2}, TestGateway.OPERATOR_TOKEN);
            assertEquals(503, second.statusCode(), second.body());
            assertEquals("node-a", JSON.readTree(second.body()).get("node").asText(), second.body());
            assertTrue(second.body().contains("forward-max-in-flight"), second.body());
            // the holder's log shows the refusal too, joined to the asking node's line by the correlation id
            String asked = awaitLine(log, l -> l.startsWith("operation operator=") && l.contains("via node node-a")
                    && l.contains("forward-max-in-flight"));
            String held = awaitLine(log, l -> l.startsWith("operation forwarded from=node-b correlation="
                    + correlationOf(asked) + " "));
            assertTrue(held.contains("what=downlink client=dev-slow topic=devices/dev-slow/cmd qos=1"), held);
            assertTrue(held.contains("outcome=refused: busy") && held.contains("forward-max-in-flight"), held);
            assertEquals(504, first.get().statusCode(), first.get().body());
        }
    }

    @Test
    void nodeThatDoesNotServeYetRefusesBusyAndAuditsTheRefusal() throws Exception {
        plantRoute("dev-early", "node-starting");
        // a route store whose node never gets as far as serving forwarded operations: a node still starting
        RedisRouteStore starting = TestRouteStores.store(TestRouteStores.settings(redis), "node-starting",
                TestRouteStores.meters());
        try (EventLogCapture log = new EventLogCapture(); Gateway b = node("node-b").start()) {
            starting.start(new TestRouteStores.FakeNode());
            RedisOperationForwarding forwarding = (RedisOperationForwarding) starting.forwarding().orElseThrow();
            TestRouteStores.await("node-starting listens", forwarding::subscribed, PATIENCE_MILLIS / 1000);
            awaitForwarding(b);

            HttpResponse<String> kick = send(b, "DELETE", "/clients/dev-early", null, TestGateway.OPERATOR_TOKEN);
            assertEquals(503, kick.statusCode(), kick.body());
            assertEquals("node-starting", JSON.readTree(kick.body()).get("node").asText(), kick.body());
            String asked = awaitLine(log, l -> l.startsWith("operation operator=")
                    && l.contains("DELETE /clients/dev-early via node node-starting"));
            String held = awaitLine(log, l -> l.startsWith("operation forwarded from=node-b correlation="
                    + correlationOf(asked) + " "));
            assertTrue(held.contains("what=kick client=dev-early"), held);
            assertTrue(held.endsWith("outcome=refused: busy: node node-starting is starting"), held);
        } finally {
            starting.close().toCompletableFuture().get(30, TimeUnit.SECONDS);
            check.getKeys().delete("mqttgw:route:{dev-early}");
        }
    }

    private static void plantRoute(String clientId, String nodeId) {
        check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).putAll(Map.of("node",
                nodeId, "epoch", "1", "connected_at", Long.toString(System.currentTimeMillis()), "remote",
                "/192.0.2.1:1", "proof", "certificate"));
    }

    /** Waits until node {@code asked} reads the route of {@code clientId} naming {@code holder}. */
    private static void awaitRoute(Gateway asked, String clientId, String holder) throws Exception {
        long deadline = System.currentTimeMillis() + PATIENCE_MILLIS;
        HttpResponse<String> r;
        do {
            r = send(asked, "GET", "/clients/" + clientId, null, TestGateway.OPERATOR_TOKEN);
            if (r.statusCode() == 200 && holder.equals(JSON.readTree(r.body()).path("node").asText())) {
                return;
            }
            Thread.sleep(20);
        } while (System.currentTimeMillis() < deadline);
        throw new AssertionError("route of " + clientId + " to " + holder + " not seen: " + r.body());
    }

    private static HttpRequest request(Gateway node, String method, String path, byte[] body, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + path))
                .timeout(Duration.ofSeconds(60)).method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    private static HttpResponse<String> send(Gateway node, String method, String path, byte[] body, String token)
            throws Exception {
        return HTTP.send(request(node, method, path, body, token), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(Gateway node, String path) {
        return HTTP.sendAsync(request(node, "POST", path, new byte[] {1}, TestGateway.OPERATOR_TOKEN),
                HttpResponse.BodyHandlers.ofString());
    }
}
