package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.BalancerFleet.addressOf;
import static io.mqttgw.core.bootstrap.BalancerFleet.awaitListening;
import static io.mqttgw.core.bootstrap.BalancerFleet.connectThrough;
import static io.mqttgw.core.bootstrap.BalancerFleet.freePort;
import static io.mqttgw.core.bootstrap.BalancerFleet.repositoryRoot;
import static io.mqttgw.core.bootstrap.BalancerFleet.route;
import static io.mqttgw.core.bootstrap.BalancerFleet.waitForRoute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.BalancerFleet.NodeAddress;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real HAProxy (Debian's package; .ci/run installs it) in TCP mode with send-proxy-v2 and a /health/ready check in
 * front of two gateways: devices land on the first, each gateway sees the device's own address, and when the first
 * closes its port under overload HAProxy marks it down and new devices land on the second. And the shipped
 * deploy/haproxy/haproxy.cfg in front of three nodes, one killed or drained: no device sees a failed attempt.
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

    /** The installed HAProxy; the test is skipped without one. */
    static Path requireHaproxy() {
        Path haproxy = haproxy();
        Assumptions.assumeTrue(haproxy != null, "HAProxy is not installed (apt-get install haproxy; .ci/run does)");
        return haproxy;
    }

    static TestGateway behindProxy(TestPki pki, Path dir, String node) {
        // the handshake rate counts as overload here (by default it only makes the node busy), so the flood below
        // takes the node out of the balancer
        return TestGateway.tls(pki, dir).with("node.id", node).with("listener.tls.proxy-protocol", "true")
                .with("overload.lag-reaction", "overload").with("overload.handshake-rate",
                "15").with("overload.handshake-rate-exit", "3")
                .with("overload.interval", "100ms").with("overload.recovery-hold", "30s");
    }

    @Test
    void sendsDevicesToTheSecondGatewayWhileTheFirstIsOverloaded() throws Exception {
        Path haproxy = requireHaproxy();
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway first = behindProxy(pki, dir.resolve("gw1"), "gw1").start();
             Gateway second = behindProxy(pki, dir.resolve("gw2"), "gw2").start()) {
            int front = freePort();
            String cfg = String.join("\n",
                    "global", "  maxconn 2000",
                    "defaults", "  mode tcp", "  timeout connect 2s", "  timeout client 60s", "  timeout server 60s",
                    "frontend mqtt", "  bind 127.0.0.1:" + front, "  default_backend gateways",
                    "backend gateways",
                    // every device to the first gateway while it is up, so the move to the second is visible
                    "  balance first",
                    "  option httpchk GET /health/ready", "  http-check expect status 200",
                    "  default-server inter 200ms fall 1 rise 2 send-proxy-v2",
                    "  server gw1 127.0.0.1:" + first.tlsPort() + " check port " + first.adminPort(),
                    "  server gw2 127.0.0.1:" + second.tlsPort() + " check port " + second.adminPort(), "");
            Process proxy = startHaproxy(dir, haproxy, cfg, front);
            try {
                Thread.sleep(600); // two health checks mark both servers up

                SSLSocket a = connectThrough(pki.clientContext(pki.device("dev-a")), front, "dev-a");
                Route onFirst = waitForRoute(first, "dev-a");
                assertEquals(addressOf(a), onFirst.remoteAddress(), "the gateway sees the device, not HAProxy");

                // a handshake flood straight at the first gateway overloads it: it closes its port, /health/ready is
                // 503
                SSLContext flood = pki.clientContext(pki.device("dev-flood"));
                long deadline = System.currentTimeMillis() + 5000;
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

    /**
     * The shipped deploy/haproxy/haproxy.cfg, as it is, in front of three nodes, one of them killed; only the
     * addresses and the global connection limit are local. Devices connect inside the shipped inter 2s x fall 2, so
     * the checks alone cannot have taken the dead node out: the shipped retry options must.
     */
    @Test
    void shippedConfigMovesDevicesOffAKilledNodeBeforeItsChecksFail() throws Exception {
        BalancerFleet.devicesConnectRightAfterANodeIsKilled(dir, shippedHaproxy(requireHaproxy(), 0));
    }

    /** The shipped deploy/haproxy/haproxy.cfg in front of three nodes, one of them drained by SIGTERM. */
    @Test
    void shippedConfigMovesDevicesOffADrainingNodeWithoutAFailedAttempt() throws Exception {
        // the shipped rise 2 x inter 2s: every node up before the devices arrive
        BalancerFleet.devicesMoveOffADrainingNodeWithoutAFailedAttempt(dir, shippedHaproxy(requireHaproxy(), 4500));
    }

    private static BalancerFleet.Balancer shippedHaproxy(Path haproxy, long settleMillis) {
        return new BalancerFleet.Balancer() {
            @Override
            public Process start(Path dir, int front, List<NodeAddress> nodes) throws Exception {
                String[] servers = nodes.stream().map(n -> "server " + n.name() + " 127.0.0.1:" + n.tlsPort()
                        + " port " + n.adminPort()).toArray(String[]::new);
                return startHaproxy(dir, haproxy, shippedConfig(front, servers), front);
            }

            @Override
            public long settleMillis() {
                return settleMillis;
            }

            @Override
            public String log(Path dir) throws IOException {
                return Files.readString(dir.resolve("haproxy.log"));
            }
        };
    }

    /** Starts HAProxy on {@code config} (its log in haproxy.log) and waits until its frontend accepts connections. */
    static Process startHaproxy(Path dir, Path haproxy, String config, int front)
            throws IOException, InterruptedException {
        Path cfg = Files.writeString(dir.resolve("haproxy.cfg"), config);
        Process proxy = new ProcessBuilder(haproxy.toString(), "-f", cfg.toString(), "-db")
                .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        awaitListening(front);
        return proxy;
    }

    /** deploy/haproxy/haproxy.cfg with its servers replaced, its frontend on {@code front} and a test-sized limit. */
    static String shippedConfig(int front, String... servers) throws IOException {
        StringBuilder out = new StringBuilder();
        boolean serversWritten = false;
        for (String line : Files.readAllLines(repositoryRoot().resolve("deploy/haproxy/haproxy.cfg"))) {
            String t = line.trim();
            if (t.startsWith("maxconn ") && !line.startsWith("    default-server")) {
                out.append("    maxconn 2000\n");
            } else if (t.startsWith("bind ")) {
                out.append("    bind 127.0.0.1:").append(front).append('\n');
            } else if (t.startsWith("server ")) {
                if (!serversWritten) {
                    for (String s : servers) {
                        out.append("    ").append(s).append('\n');
                    }
                    serversWritten = true;
                }
            } else {
                out.append(line).append('\n');
            }
        }
        assertTrue(serversWritten, "the shipped config names its servers");
        return out.toString();
    }
}
