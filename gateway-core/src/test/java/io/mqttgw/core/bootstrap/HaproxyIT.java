package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real HAProxy (Debian's package; .ci/run installs it) in TCP mode with send-proxy-v2 and a /health/ready check in
 * front of two gateways: devices land on the first, each gateway sees the device's own address, and when the first
 * closes its port under overload HAProxy marks it down and new devices land on the second.
 */
class HaproxyIT {
    @TempDir
    Path dir;

    static Path haproxy() {
        for (String candidate : new String[] {"/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"}) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        return null;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    static TestGateway behindProxy(TestPki pki, Path dir, String node) {
        // the handshake rate counts as overload here (by default it only makes the node busy), so the flood below
        // takes the node out of the balancer
        return TestGateway.tls(pki, dir).with("node.id", node).with("listener.tls.proxy-protocol", "true")
                .with("overload.lag-reaction", "overload").with("overload.handshake-rate", "15").with("overload.handshake-rate-exit", "3")
                .with("overload.interval", "100ms").with("overload.recovery-hold", "30s");
    }

    static Optional<Route> route(Gateway gateway, String clientId) throws Exception {
        return gateway.routes().lookup(clientId).toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    /** Connects through HAProxy and stays connected; the caller closes the socket. */
    static SSLSocket connectThrough(SSLContext context, int port, String clientId) throws IOException {
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(5000);
        s.startHandshake();
        s.getOutputStream().write(RawMqttConnection.connectPacket(clientId, 60, 4));
        byte[] connack = s.getInputStream().readNBytes(4);
        assertEquals(0, connack[3], "CONNACK accepted through HAProxy");
        return s;
    }

    /** The device's address as a gateway behind PROXY v2 must see it: the device socket's own. */
    static String addressOf(Socket device) {
        return "/127.0.0.1:" + device.getLocalPort();
    }

    @Test
    void sendsDevicesToTheSecondGatewayWhileTheFirstIsOverloaded() throws Exception {
        Path haproxy = haproxy();
        Assumptions.assumeTrue(haproxy != null, "HAProxy is not installed (apt-get install haproxy; .ci/run does)");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway first = behindProxy(pki, dir.resolve("gw1"), "gw1").start();
             Gateway second = behindProxy(pki, dir.resolve("gw2"), "gw2").start()) {
            int front = freePort();
            Path cfg = Files.writeString(dir.resolve("haproxy.cfg"), String.join("\n",
                    "global", "  maxconn 2000",
                    "defaults", "  mode tcp", "  timeout connect 2s", "  timeout client 60s", "  timeout server 60s",
                    "frontend mqtt", "  bind 127.0.0.1:" + front, "  default_backend gateways",
                    "backend gateways",
                    // every device to the first gateway while it is up, so the move to the second is visible
                    "  balance first",
                    "  option httpchk GET /health/ready", "  http-check expect status 200",
                    "  default-server inter 200ms fall 1 rise 2 send-proxy-v2",
                    "  server gw1 127.0.0.1:" + first.tlsPort() + " check port " + first.adminPort(),
                    "  server gw2 127.0.0.1:" + second.tlsPort() + " check port " + second.adminPort(), ""));
            Process proxy = new ProcessBuilder(haproxy.toString(), "-f", cfg.toString(), "-db")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            try {
                long deadline = System.currentTimeMillis() + 10_000;
                while (!canConnect(front) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(50);
                }
                Thread.sleep(600); // two health checks mark both servers up

                SSLSocket a = connectThrough(pki.clientContext(pki.device("dev-a")), front, "dev-a");
                Route onFirst = waitForRoute(first, "dev-a");
                assertEquals(addressOf(a), onFirst.remoteAddress(), "the gateway sees the device, not HAProxy");

                // a handshake flood straight at the first gateway overloads it: it closes its port, /health/ready is 503
                SSLContext flood = pki.clientContext(pki.device("dev-flood"));
                deadline = System.currentTimeMillis() + 5000;
                while (!first.overloaded() && System.currentTimeMillis() < deadline) {
                    try (Socket s = new Socket("127.0.0.1", first.tlsPort())) {
                        s.getOutputStream().write(ProxyProtocolIT.v1("192.0.2.1", 1));
                        SSLSocket t = (SSLSocket) flood.getSocketFactory().createSocket(s, "127.0.0.1",
                                first.tlsPort(), true);
                        t.startHandshake();
                    } catch (IOException closed) {
                        // the port closes under the flood
                    }
                }
                assertTrue(first.overloaded());
                Thread.sleep(800); // HAProxy's check sees the 503 / closed port

                try (SSLSocket b = connectThrough(pki.clientContext(pki.device("dev-b")), front, "dev-b")) {
                    Route onSecond = waitForRoute(second, "dev-b");
                    assertEquals(addressOf(b), onSecond.remoteAddress());
                    assertTrue(route(first, "dev-b").isEmpty(), "the overloaded gateway got no new device");
                }
                a.close();
            } finally {
                proxy.destroy();
                proxy.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    static boolean canConnect(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static Route waitForRoute(Gateway gateway, String clientId) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        Optional<Route> r = route(gateway, clientId);
        while (r.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            r = route(gateway, clientId);
        }
        assertNotNull(r.orElse(null), clientId + " has a route on " + gateway.config().nodeId());
        return r.get();
    }
}
