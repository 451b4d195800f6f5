package io.mqttgw.routing.takeover;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisNodes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/** Two gateway nodes in one JVM share a real Redis; devices connect over mutual TLS as they would in the field. */
class RedisTwoNodeTakeoverIT extends RedisNodes {
    static Gateway node(String id) {
        return redisNode(id).start();
    }

    static Optional<Route> route(Gateway gateway, String clientId) throws Exception {
        return gateway.routes().lookup(clientId).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    static Map<String, String> hgetall(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    static String health(Gateway gateway) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateway.adminPort() + "/health")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aDeviceMovingFromNodeAToNodeBIsKickedOnAAndItsRouteNamesB() throws Exception {
        try (Gateway a = node("node-a"); Gateway b = node("node-b")) {
            assertTrue(a.routes() instanceof RedisRouteStore);
            Mqtt3BlockingClient onA = TestDevices.mutualTls(pki, a.tlsPort(), "mover").buildBlocking();
            onA.connect();
            await("route names node-a", () -> "node-a".equals(hgetall("mover").get("node")), 10);
            long epochOnA = route(a, "mover").orElseThrow().epoch();
            assertTrue(health(a).contains("UP"), health(a));

            Mqtt3BlockingClient onB = TestDevices.mutualTls(pki, b.tlsPort(), "mover").buildBlocking();
            onB.connect();

            await("node a closed its session as a takeover",
                    () -> a.metrics().disconnects(DisconnectReason.TAKEOVER) == 1, 10);
            await("hivemq client on a sees the disconnect", () -> !onA.getState().isConnected(), 10);
            assertEquals(null, a.registry().find("mover"));
            assertEquals(0, b.metrics().disconnects(DisconnectReason.TAKEOVER));
            assertTrue(onB.getState().isConnected());

            Route now = route(b, "mover").orElseThrow();
            assertEquals("node-b", now.nodeId());
            assertEquals(now, route(a, "mover").orElseThrow(), "both nodes read the same table");
            // node a's late delete for its old epoch was fenced and left node b's route
            await("a's delete fenced", () -> a.metrics().registry().get("mqttgw.routes.redis.ops")
                    .tag("type", "delete").tag("result", "fenced").counter().count() == 1, 10);
            assertEquals("node-b", hgetall("mover").get("node"));
            assertFalse(Long.toString(epochOnA).equals(hgetall("mover").get("epoch")));
            assertEquals(1, a.metrics().registry().get("mqttgw.routes.redis.takeovers.received").counter().count());

            onB.disconnect();
            await("route deleted after the device left b", () -> hgetall("mover").isEmpty(), 10);
        }
        assertFalse(check.getKeys().countExists("mqttgw:node:{node-a}:alive", "mqttgw:node:{node-b}:alive") > 0,
                "clean shutdown removed both heartbeats");
    }
}
