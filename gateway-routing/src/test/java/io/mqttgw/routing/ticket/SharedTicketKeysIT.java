package io.mqttgw.routing.ticket;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.tls.HandshakeKind;
import io.mqttgw.routing.testkit.RedisNodes;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * Two gateway nodes share a real redis-server and, through it, their TLS session-ticket keys: a device that got its
 * TLS 1.3 ticket from node A resumes on node B (reached through the same balancer address), also after the keys
 * rotated, within the grace the previous keys give.
 */
class SharedTicketKeysIT extends RedisNodes {
    static TestGateway node(String id, String... settings) {
        TestGateway g = redisNode(id).with("listener.tls.protocols", "TLSv1.3");
        for (int i = 0; i < settings.length; i += 2) {
            g.with(settings[i], settings[i + 1]);
        }
        return g;
    }

    /** One MQTT session through the balancer; true when the server resumed the TLS session. */
    static void connectVia(BalancerStandIn balancer, SSLContext device, String clientId) throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(device, balancer.port())) {
            // TLS 1.3 sends the ticket after the handshake; the CONNACK round trip makes sure it arrived
            assertEquals(0, raw.connect(clientId, 60));
            assertEquals("TLSv1.3", ((SSLSocket) raw.socket()).getSession().getProtocol());
        }
    }

    static double resumed(Gateway node) {
        return node.metrics().tlsHandshakes(true);
    }

    @Test
    void aTicketFromNodeAResumesOnNodeB() throws Exception {
        try (Gateway a = node("ticket-a").start(); Gateway b = node("ticket-b").start();
             BalancerStandIn balancer = new BalancerStandIn()) {
            SSLContext device = pki.clientContext(pki.device("roamer"));
            balancer.pointAt(a.tlsPort());
            connectVia(balancer, device, "roamer");
            assertEquals(0.0, resumed(a), "the first handshake is a full one");

            balancer.pointAt(b.tlsPort());
            double admittedResumed = b.admission().handshakesCompleted(HandshakeKind.RESUMED);
            connectVia(balancer, device, "roamer");
            assertEquals(1.0, resumed(b), "node B decrypted node A's ticket and resumed the session");
            assertEquals(admittedResumed + 1, b.admission().handshakesCompleted(HandshakeKind.RESUMED),
                    "and admission charged it as resumed");
            assertEquals(1.0, b.metrics().registry().get("mqttgw.tls.ticket.key.shared").gauge().value());
            assertTrue(b.metrics().registry().get("mqttgw.tls.resumption.ratio").gauge().value() > 0);
            long epoch = System.currentTimeMillis() / 3_600_000;
            byte[] stored = check.<byte[]>getBucket("mqttgw:tls:ticket-key:" + epoch, ByteArrayCodec.INSTANCE).get();
            assertEquals(48, stored.length, "the shared key lives in Redis, 48 bytes, under the route prefix");
        }
    }

    @Test
    void withKeysOfTheirOwnTheNodesDoNotResumeEachOthersSessions() throws Exception {
        try (Gateway a = node("local-a", "listener.tls.ticket-key-source", "local").start();
             Gateway b = node("local-b", "listener.tls.ticket-key-source", "local").start();
             BalancerStandIn balancer = new BalancerStandIn()) {
            SSLContext device = pki.clientContext(pki.device("stayer"));
            balancer.pointAt(a.tlsPort());
            connectVia(balancer, device, "stayer");
            balancer.pointAt(b.tlsPort());
            connectVia(balancer, device, "stayer");
            assertEquals(0.0, resumed(b), "B cannot read A's ticket: a full handshake");
            balancer.pointAt(a.tlsPort());
            connectVia(balancer, device, "stayer");
            // the client may have offered A's or B's newest ticket; B's is not readable by A
            assertEquals(0.0, resumed(b));
        }
    }

    @Test
    void aTicketMadeBeforeARotationStillResumesOnTheOtherNodeWithinTheGrace() throws Exception {
        String[] fast = {"listener.tls.ticket-key-rotation", "3s", "listener.tls.session-timeout", "30s"};
        try (Gateway a = node("rot-a", fast).start(); Gateway b = node("rot-b", fast).start();
             BalancerStandIn balancer = new BalancerStandIn()) {
            SSLContext device = pki.clientContext(pki.device("sleeper"));
            balancer.pointAt(a.tlsPort());
            connectVia(balancer, device, "sleeper");
            double rotationsA = a.metrics().registry().get("mqttgw.tls.ticket.key.rotations").counter().count();
            double rotationsB = b.metrics().registry().get("mqttgw.tls.ticket.key.rotations").counter().count();
            await("both nodes rotated their ticket key",
                    () -> a.metrics().registry().get("mqttgw.tls.ticket.key.rotations").counter().count() > rotationsA
                            && b.metrics().registry().get("mqttgw.tls.ticket.key.rotations").counter().count()
                            > rotationsB, 20);
            balancer.pointAt(b.tlsPort());
            connectVia(balancer, device, "sleeper");
            assertEquals(1.0, resumed(b), "the previous key still decrypts the ticket on node B");
        }
    }

    @Test
    void keepsServingAndResumingOnTheNodeWhileRedisIsDown() throws Exception {
        try (Gateway a = node("outage-a").start(); BalancerStandIn balancer = new BalancerStandIn()) {
            redis.stop();
            try (Gateway c = node("outage-c").start()) {
                SSLContext device = pki.clientContext(pki.device("patient"));
                balancer.pointAt(a.tlsPort());
                connectVia(balancer, device, "patient");
                connectVia(balancer, device, "patient");
                assertEquals(1.0, resumed(a), "node A kept its keys: its own tickets still resume");

                SSLContext other = pki.clientContext(pki.device("newcomer"));
                balancer.pointAt(c.tlsPort());
                connectVia(balancer, other, "newcomer");
                connectVia(balancer, other, "newcomer");
                assertEquals(1.0, resumed(c), "a node started without Redis serves and resumes with its own keys");
                assertEquals(0.0, c.metrics().registry().get("mqttgw.tls.ticket.key.shared").gauge().value());
                assertTrue(c.metrics().registry().get("mqttgw.tls.ticket.key.source.failures").counter().count() > 0);
            } finally {
                redis.start();
            }
        }
    }
}
