package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.CoreConfigKeys;
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

    /** The installed HAProxy; the test is skipped without one. */
    static Path requireHaproxy() {
        Path haproxy = haproxy();
        Assumptions.assumeTrue(haproxy != null, "HAProxy is not installed (apt-get install haproxy; .ci/run does)");
        return haproxy;
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
                .with("overload.lag-reaction", "overload").with("overload.handshake-rate",
                "15").with("overload.handshake-rate-exit", "3")
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
            Process proxy = startHaproxy(haproxy, cfg, front);
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
     * The shipped deploy/haproxy/haproxy.cfg, as it is, in front of two gateways; only the addresses and the global
     * connection limit are local. One node is a process of its own and is killed ({@code SIGKILL}); devices connect
     * at once, before the health checks can have marked it down: leastconn sends them to the dead node first (it
     * holds no device), and the shipped retry options must bring every one to the survivor without a failed attempt.
     */
    @Test
    void shippedConfigMovesDevicesOffAKilledNodeBeforeItsChecksFail() throws Exception {
        Path haproxy = requireHaproxy();
        TestPki pki = TestPki.create(dir.resolve("pki"));
        ProcessNode doomedNode = ProcessNode.start(shippedNode(pki, "gw1"), dir.resolve("gw1.log"));
        Process doomed = doomedNode.process();
        try (Gateway survivor = shippedNode(pki, "gw2").start()) {
            int front = freePort();
            Process proxy = startHaproxy(haproxy, shippedConfig(doomedNode, survivor, front), front);
            try {
                // both nodes serve, each holds one device
                SSLSocket a = connectThrough(pki.clientContext(pki.device("dev-a")), front, "dev-a");
                SSLSocket b = connectThrough(pki.clientContext(pki.device("dev-b")), front, "dev-b");
                assertEquals(1, survivor.registry().size(), "leastconn gave each node one device");

                doomed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                // inside the shipped inter 2s x fall 2: the checks alone cannot have taken the dead node out yet
                int failed = 0;
                for (int i = 0; i < 8; i++) {
                    try (SSLSocket d = connectThrough(pki.clientContext(pki.device("moved-" + i)), front,
                            "moved-" + i)) {
                        waitForRoute(survivor, "moved-" + i);
                    } catch (Exception | AssertionError refused) {
                        failed++;
                    }
                }
                assertEquals(0, failed, "devices refused while HAProxy still counted the dead node as up ("
                        + Files.readString(dir.resolve("haproxy.log")) + ")");
                a.close();
                b.close();
            } finally {
                proxy.destroy();
                proxy.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            doomed.destroyForcibly();
            doomed.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The shipped deploy/haproxy/haproxy.cfg in front of two nodes, one a process of its own that gets SIGTERM (as
     * {@code systemctl stop} or a rolling restart sends it) with the shipped {@code shutdown.ready-grace}. Devices
     * that hold their connection and reconnect when it closes, and new devices arriving all along: every attempt
     * succeeds (counted on the device side), and every device ends up on the other node.
     */
    @Test
    void shippedConfigMovesDevicesOffADrainingNodeWithoutAFailedAttempt() throws Exception {
        Path haproxy = requireHaproxy();
        TestPki pki = TestPki.create(dir.resolve("pki"));
        ProcessNode leavingNode = ProcessNode.start(shippedNode(pki, "gw1")
                .with("shutdown.ready-grace", CoreConfigKeys.SHUTDOWN_READY_GRACE.defaultValue())
                .with("shutdown.drain-rate", "5").with("shutdown.timeout", "30s"), dir.resolve("gw1.log"));
        Process leaving = leavingNode.process();
        java.util.List<RoamingDevice> devices = new java.util.ArrayList<>();
        try (Gateway staying = shippedNode(pki, "gw2").start()) {
            int front = freePort();
            Process proxy = startHaproxy(haproxy, shippedConfig(leavingNode, staying, front), front);
            try {
                Thread.sleep(4500); // the shipped rise 2 x inter 2s: both nodes up
                for (int i = 0; i < 10; i++) {
                    devices.add(RoamingDevice.start(pki, front, "held-" + i));
                }
                await(() -> devices.stream().allMatch(d -> d.connects.get() == 1), "every device connected");
                assertTrue(staying.registry().size() < devices.size(), "leastconn gave the leaving node devices");

                // and devices that connect, disconnect and connect again all along, so that connections are arriving
                // when the leaving node's port closes
                for (int i = 0; i < 3; i++) {
                    devices.add(RoamingDevice.churning(pki, front, "churn-" + i));
                }
                leaving.destroy(); // SIGTERM
                long drainStarted = System.nanoTime();
                // new devices keep arriving through the grace and the drain
                for (int i = 0; i < 20 && leaving.isAlive(); i++) {
                    devices.add(RoamingDevice.start(pki, front, "new-" + i));
                    Thread.sleep(400);
                }
                assertTrue(leaving.waitFor(90, TimeUnit.SECONDS), "the drained node exits");
                assertEquals(143, leaving.exitValue(), Files.readString(dir.resolve("gw1.log")));
                long drainedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStarted);
                devices.stream().filter(d -> d.churn).forEach(RoamingDevice::stop);
                long holding = devices.stream().filter(d -> !d.churn).count();
                await(() -> staying.registry().size() == holding, "every device on the staying node ("
                        + staying.registry().size() + " of " + holding + ")");
                int failed = devices.stream().mapToInt(d -> d.failed.get()).sum();
                long moved = devices.stream().filter(d -> !d.churn && d.connects.get() > 1).count();
                long churned = devices.stream().filter(d -> d.churn).mapToInt(d -> d.connects.get()).sum();
                assertTrue(moved > 0, "devices moved from the leaving node");
                assertEquals(0, failed, "failed connection attempts (" + moved + " devices moved, " + churned
                        + " short connections, drain took "
                        + drainedMs + " ms): " + devices.stream().filter(d -> d.failed.get() > 0)
                        .map(d -> d.id + ": " + d.lastFailure).toList());
            } finally {
                devices.forEach(RoamingDevice::stop);
                proxy.destroy();
                proxy.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            leaving.destroyForcibly();
            leaving.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out: " + what);
            Thread.sleep(50);
        }
    }

    /**
     * A device that holds its connection through the balancer and, when the gateway closes it, reconnects after a
     * short random pause, as devices do; every attempt that does not end in an accepting CONNACK is counted.
     */
    static final class RoamingDevice implements Runnable {
        final String id;
        /** Disconnects itself right after each CONNACK instead of holding the connection. */
        final boolean churn;
        final java.util.concurrent.atomic.AtomicInteger connects = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        volatile String lastFailure;
        private final SSLContext context;
        private final int front;
        private volatile boolean stopped;
        private volatile SSLSocket socket;
        private final Thread thread;

        private RoamingDevice(TestPki pki, int front, String id, boolean churn) {
            this.id = id;
            this.churn = churn;
            this.context = pki.clientContext(pki.device(id));
            this.front = front;
            this.thread = new Thread(this, "device-" + id);
            thread.setDaemon(true);
        }

        static RoamingDevice start(TestPki pki, int front, String id) {
            RoamingDevice d = new RoamingDevice(pki, front, id, false);
            d.thread.start();
            return d;
        }

        static RoamingDevice churning(TestPki pki, int front, String id) {
            RoamingDevice d = new RoamingDevice(pki, front, id, true);
            d.thread.start();
            return d;
        }

        @Override
        public void run() {
            java.util.Random random = new java.util.Random(id.hashCode());
            while (!stopped) {
                SSLSocket s;
                try {
                    s = connectThrough(context, front, id);
                } catch (Exception | AssertionError e) {
                    if (!stopped) {
                        failed.incrementAndGet();
                        lastFailure = e.toString();
                    }
                    sleep(200);
                    continue;
                }
                socket = s;
                connects.incrementAndGet();
                if (churn) {
                    try (s) {
                        s.getOutputStream().write(new byte[] {(byte) 0xE0, 0}); // DISCONNECT
                    } catch (IOException e) {
                        // closed either way
                    }
                    sleep(20);
                    continue;
                }
                holdUntilClosed(s);
                sleep(random.nextInt(300));
            }
        }

        private void holdUntilClosed(SSLSocket s) {
            try (s) {
                s.setSoTimeout(500);
                while (!stopped) {
                    try {
                        if (s.getInputStream().read() < 0) {
                            return;
                        }
                    } catch (java.net.SocketTimeoutException idle) {
                        // still connected
                    }
                }
            } catch (IOException closedByTheGateway) {
                // the drain closed it: reconnect
            }
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void stop() {
            stopped = true;
            SSLSocket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A node in a JVM of its own, so that it can be killed as a crashed node is. */
    static Process startProcess(TestGateway settings, Path log) throws IOException {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path")));
        command.addAll(settings.jvmOptions());
        command.add(GatewayMain.class.getName());
        command.add("run");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** A node as the shipped config expects it: TLS behind PROXY v2, the rest as in any test. */
    TestGateway shippedNode(TestPki pki, String node) {
        return TestGateway.tls(pki, dir.resolve(node)).with("node.id", node)
                .with("listener.tls.proxy-protocol", "true");
    }

    /** A node in a JVM of its own on ports chosen here, so that the balancer's config can name them before it runs. */
    record ProcessNode(Process process, int tlsPort, int adminPort, Path log) {
        static ProcessNode start(TestGateway settings, Path log) throws IOException {
            int tls = freePort();
            int admin = freePort();
            return new ProcessNode(startProcess(settings.with("listener.tls.port", Integer.toString(tls))
                    .with("admin.port", Integer.toString(admin)), log), tls, admin, log);
        }

        /** Waits until both its ports accept connections; fails if the process ends first. */
        void awaitServing() throws IOException, InterruptedException {
            long deadline = System.currentTimeMillis() + 60_000;
            while (!(canConnect(tlsPort) && canConnect(adminPort)) && System.currentTimeMillis() < deadline) {
                assertTrue(process.isAlive(), "the node in its own JVM runs: " + Files.readString(log));
                Thread.sleep(100);
            }
        }
    }

    /**
     * The shipped config in front of {@code external} (gw1, waited for until it serves) and {@code local} (gw2), in
     * that order.
     */
    String shippedConfig(ProcessNode external, Gateway local, int front) throws IOException, InterruptedException {
        external.awaitServing();
        return shippedConfig(front, "server gw1 127.0.0.1:" + external.tlsPort() + " port " + external.adminPort(),
                "server gw2 127.0.0.1:" + local.tlsPort() + " port " + local.adminPort());
    }

    /** Starts HAProxy on {@code config} (its log in haproxy.log) and waits until its frontend accepts connections. */
    Process startHaproxy(Path haproxy, String config, int front) throws IOException, InterruptedException {
        Path cfg = Files.writeString(dir.resolve("haproxy.cfg"), config);
        Process proxy = new ProcessBuilder(haproxy.toString(), "-f", cfg.toString(), "-db")
                .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (!canConnect(front) && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        return proxy;
    }

    /** deploy/haproxy/haproxy.cfg with its servers replaced, its frontend on {@code front} and a test-sized limit. */
    static String shippedConfig(int front, String... servers) throws IOException {
        Path shipped = Path.of("").toAbsolutePath();
        while (shipped != null && !Files.exists(shipped.resolve("deploy/haproxy/haproxy.cfg"))) {
            shipped = shipped.getParent();
        }
        assertNotNull(shipped, "deploy/haproxy/haproxy.cfg above " + Path.of("").toAbsolutePath());
        StringBuilder out = new StringBuilder();
        boolean serversWritten = false;
        for (String line : Files.readAllLines(shipped.resolve("deploy/haproxy/haproxy.cfg"))) {
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
