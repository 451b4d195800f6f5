package io.mqttgw.routing.takeover;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.routing.testkit.RedisNodes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

/**
 * Identities stay bound to how they were proven across nodes: two gateways share a real Redis route table, each with
 * the mutual-TLS listener and the plain listener where a client without a certificate is let in
 * ({@code auth.certificate.allow-without-certificate}). A client without a certificate on node B that names a
 * certificate device connected to node A neither disconnects it nor gets its downlink, and the reverse.
 */
class CrossNodeProofAttackIT extends RedisNodes {
    private static final byte[] PINGREQ = {(byte) 0xC0, 0};

    static Gateway node(String id) {
        return redisNode(id).with("listener.tcp.enabled", "true")
                .with("auth.certificate.allow-without-certificate", "true")
                .with("acl.publish", "devices/{client-id}/#").with("acl.subscribe", "devices/{client-id}/#").start();
    }

    static Map<String, String> hgetall(String clientId) {
        return check.<String, String>getMap("mqttgw:route:{" + clientId + "}", StringCodec.INSTANCE).readAllMap();
    }

    /**
     * Where a business service sends a device's downlink: to the node its route names (QoS 0: DELIVERED once written).
     */
    static Outcome sendDownlink(Gateway a, Gateway b, String clientId, String text) throws Exception {
        Route route = a.routes().lookup(clientId).toCompletableFuture().get(15, TimeUnit.SECONDS).orElseThrow();
        Gateway holder = route.nodeId().equals(a.config().nodeId()) ? a : b;
        return holder.downlink().deliver(new DownlinkMessage(clientId, "devices/" + clientId + "/commands", 0, false,
                text.getBytes(StandardCharsets.UTF_8))).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    static byte[] subscribe(String filter) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0);
        body.write(1);
        byte[] f = filter.getBytes(StandardCharsets.UTF_8);
        body.write(f.length >> 8);
        body.write(f.length & 0xFF);
        body.writeBytes(f);
        body.write(1);
        return RawMqttConnection.packet(0x82, body.toByteArray());
    }

    static void subscribed(RawMqttConnection c, String filter) throws IOException {
        c.send(subscribe(filter));
        assertEquals(0x90, c.readPacket()[0] & 0xFF, "SUBACK");
    }

    /** Reads until the connection closes; true when a PUBLISH carrying {@code text} came first. */
    static boolean receivedBeforeClose(RawMqttConnection c, String text) throws IOException {
        c.socket().setSoTimeout(15_000);
        while (true) {
            byte[] p;
            try {
                p = c.readPacket();
            } catch (IOException closed) {
                return false;
            }
            if ((p[0] & 0xF0) == 0x30 && new String(p, StandardCharsets.UTF_8).contains(text)) {
                return true;
            }
        }
    }

    @Test
    void aClientWithoutCertificateOnNodeBNeitherDisplacesTheCertificateDeviceOnNodeANorGetsItsDownlink()
            throws Exception {
        try (Gateway a = node("node-a"); Gateway b = node("node-b");
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("device-1")),
                     a.tlsPort())) {
            device.socket().setSoTimeout(15_000);
            assertEquals(0, device.connect("device-1", 60));
            subscribed(device, "devices/device-1/commands");
            await("route names node-a", () -> "node-a".equals(hgetall("device-1").get("node")), 15);
            String epochOnA = hgetall("device-1").get("epoch");

            try (RawMqttConnection impostor = RawMqttConnection.tcp(b.tcpPort())) {
                impostor.socket().setSoTimeout(15_000);
                assertEquals(2, impostor.connect("device-1", 60), "identifier rejected by node B");
                assertTrue(impostor.closedWithin(15_000));
            }

            assertEquals(1.0, b.metrics().identitiesRejected(GatewayMetrics.PROOF_CONFLICT));
            assertEquals(0.0, b.metrics().publishesReceived(0) + b.metrics().publishesReceived(1));
            Map<String, String> route = hgetall("device-1");
            assertEquals("node-a", route.get("node"), "the route still names the certificate device's node");
            assertEquals(epochOnA, route.get("epoch"));
            assertEquals("certificate", route.get("proof"));
            assertEquals(1.0, b.metrics().registry().get("mqttgw.routes.redis.ops").tag("type", "put")
                    .tag("result", "proof_conflict").counter().count());
            assertEquals(0.0, a.metrics().disconnects(DisconnectReason.TAKEOVER));
            assertEquals(0.0, a.metrics().registry().get("mqttgw.routes.redis.takeovers.received").counter().count());

            // the certificate device is still connected on A and gets its own downlink
            device.send(PINGREQ);
            assertEquals(0xD0, device.readPacket()[0] & 0xFF, "the certificate device still answers");
            assertEquals(Outcome.DELIVERED, sendDownlink(a, b, "device-1", "for the real device-1"));
            byte[] publish = device.readPacket();
            assertEquals(0x30, publish[0] & 0xF0);
            assertTrue(new String(publish, StandardCharsets.UTF_8).endsWith("for the real device-1"));
        }
    }

    @Test
    void aCertificateDeviceOnNodeADoesNotDisplaceAClientWithoutCertificateOnNodeBNorGetItsDownlink()
            throws Exception {
        try (Gateway a = node("node-c"); Gateway b = node("node-d");
             RawMqttConnection plain = RawMqttConnection.tcp(b.tcpPort())) {
            plain.socket().setSoTimeout(15_000);
            assertEquals(0, plain.connect("device-2", 60));
            subscribed(plain, "devices/device-2/commands");
            await("route names node-d", () -> "node-d".equals(hgetall("device-2").get("node")), 15);
            assertEquals("no_certificate", hgetall("device-2").get("proof"));

            try (RawMqttConnection certified = RawMqttConnection.tls(pki.clientContext(pki.device("device-2")),
                    a.tlsPort())) {
                certified.socket().setSoTimeout(15_000);
                // served at once (certificate connections do not wait for the route table), then closed when the
                // table refuses its route; a downlink sent meanwhile goes where the route names: node-d
                certified.connect("device-2", 60);
                try {
                    certified.send(subscribe("devices/device-2/commands"));
                } catch (IOException alreadyClosed) {
                    // closed before the SUBSCRIBE: fine
                }
                assertEquals(Outcome.DELIVERED, sendDownlink(a, b, "device-2", "for the plain device-2"));
                assertTrue(!receivedBeforeClose(certified, "for the plain device-2"),
                        "the certificate device never gets the other device's downlink");
            }
            await("node-c closed its session for the conflict",
                    () -> a.metrics().disconnects(DisconnectReason.IDENTITY_CONFLICT) == 1, 15);
            assertEquals(0.0, b.metrics().disconnects(DisconnectReason.TAKEOVER));
            assertEquals("node-d", hgetall("device-2").get("node"));
            assertEquals("no_certificate", hgetall("device-2").get("proof"));

            // the holder without a certificate is still connected, and received its downlink
            byte[] publish = plain.readPacket();
            assertEquals(0x30, publish[0] & 0xF0);
            assertTrue(new String(publish, StandardCharsets.UTF_8).endsWith("for the plain device-2"));
            plain.send(PINGREQ);
            byte[] pong;
            do {
                pong = plain.readPacket();
            } while ((pong[0] & 0xFF) != 0xD0 && (pong[0] & 0xF0) != 0x30);
            assertNotEquals(0, pong.length);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("a device was not answered within 15 s", e);
        }
    }
}
