package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.mqttgw.bench.sim.config.BalancePolicy;
import io.mqttgw.bench.sim.config.GatewayNode;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NodeHealthTest {

    @Test
    void takesANodeOutWhileItsReadyCheckAnswersNot200AndPutsItBackOn200() throws Exception {
        AtomicInteger status = new AtomicInteger(200);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/health/ready", ex -> {
            ex.sendResponseHeaders(status.get(), -1);
            ex.close();
        });
        server.start();
        try (ServerSocket other = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            URI ready = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/health/ready");
            Balancer b = new Balancer(List.of(new GatewayNode("127.0.0.1", 1, ready),
                    new GatewayNode("127.0.0.1", other.getLocalPort(), null)), BalancePolicy.LEAST_CONN);
            // a long interval: the test drives the checks itself
            try (NodeHealth health = new NodeHealth(b, Duration.ofMinutes(1))) {
                status.set(503);
                health.checkAll();
                assertFalse(b.isLive(0), "503 (draining) takes it out");
                assertTrue(b.isLive(1), "a node without a ready URL whose port accepts stays in");
                status.set(200);
                health.checkAll();
                assertTrue(b.isLive(0));
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void takesOutANodeWhosePortRefusesOrWhoseReadyCheckCannotBeReached() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Balancer b = new Balancer(List.of(new GatewayNode("127.0.0.1", closedPort, null),
                new GatewayNode("127.0.0.1", 2, URI.create("http://127.0.0.1:" + closedPort + "/health/ready"))),
                BalancePolicy.HASH);
        try (NodeHealth health = new NodeHealth(b, Duration.ofMinutes(1))) {
            health.checkAll();
            assertFalse(b.isLive(0));
            assertFalse(b.isLive(1));
        }
    }
}
