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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * What the balancer ITs share: gateway nodes (in this JVM, or in one of their own so that they can be killed), devices
 * that connect through a balancer and count their failed attempts, and the repository's shipped files.
 */
final class BalancerFleet {
    private BalancerFleet() {
    }

    /** The repository's root: the first directory above the working directory that holds {@code deploy/}. */
    static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve("deploy/haproxy"))) {
            root = root.getParent();
        }
        assertNotNull(root, "the repository's deploy/ above " + Path.of("").toAbsolutePath());
        return root;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    static boolean canConnect(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until {@code port} accepts connections (a balancer that has started). */
    static void awaitListening(int port) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!canConnect(port) && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
    }

    /** A node as the shipped balancer configs expect it: TLS behind the PROXY protocol, the rest as in any test. */
    static TestGateway shippedNode(TestPki pki, Path dir, String node) {
        return TestGateway.tls(pki, dir.resolve(node)).with("node.id", node)
                .with("listener.tls.proxy-protocol", "true");
    }

    static Optional<Route> route(Gateway gateway, String clientId) throws Exception {
        return gateway.routes().lookup(clientId).toCompletableFuture().get(1, TimeUnit.SECONDS);
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

    /** Which of {@code nodes} holds a route for {@code clientId}, waiting for the route; fails if none does. */
    static Gateway holderOf(String clientId, List<? extends Gateway> nodes) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        while (true) {
            for (Gateway node : nodes) {
                if (route(node, clientId).isPresent()) {
                    return node;
                }
            }
            assertTrue(System.currentTimeMillis() < deadline, clientId + " has a route on none of the nodes");
            Thread.sleep(20);
        }
    }

    /** Connects through the balancer and stays connected; the caller closes the socket. */
    static SSLSocket connectThrough(SSLContext context, int port, String clientId) throws IOException {
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(5000);
        s.startHandshake();
        s.getOutputStream().write(RawMqttConnection.connectPacket(clientId, 60, 4));
        byte[] connack = s.getInputStream().readNBytes(4);
        assertEquals(4, connack.length, "a CONNACK through the balancer");
        assertEquals(0, connack[3], "CONNACK accepted through the balancer");
        return s;
    }

    /** The device's address as a gateway behind the PROXY protocol must see it: the device socket's own. */
    static String addressOf(Socket device) {
        return "/127.0.0.1:" + device.getLocalPort();
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out: " + what);
            Thread.sleep(50);
        }
    }

    /** A node in a JVM of its own, so that it can be killed as a crashed node is. */
    static Process startProcess(TestGateway settings, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path")));
        command.addAll(settings.jvmOptions());
        command.add(GatewayMain.class.getName());
        command.add("run");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
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

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** A balancer under test, started in front of a fleet's nodes. */
    interface Balancer {
        /**
         * Starts the balancer on {@code front} in front of {@code nodes} (address and health port each, in that
         * order) and returns it once its front port accepts connections.
         */
        Process start(Path dir, int front, List<NodeAddress> nodes) throws Exception;

        /** How long after its start the balancer sends devices to every node (its health checks' rise). */
        long settleMillis();

        /** Its log, for a failure message. */
        String log(Path dir) throws IOException;
    }

    /** A node as a balancer's config names it. */
    record NodeAddress(String name, int tlsPort, int adminPort) {
        static NodeAddress of(ProcessNode node, String name) {
            return new NodeAddress(name, node.tlsPort(), node.adminPort());
        }

        static NodeAddress of(Gateway node) {
            return new NodeAddress(node.config().nodeId(), node.tlsPort(), node.adminPort());
        }
    }

    private static List<NodeAddress> addresses(ProcessNode external, List<Gateway> locals)
            throws IOException, InterruptedException {
        external.awaitServing();
        List<NodeAddress> nodes = new ArrayList<>(List.of(NodeAddress.of(external, "gw1")));
        locals.forEach(g -> nodes.add(NodeAddress.of(g)));
        return nodes;
    }

    private static void stop(Process balancer) throws InterruptedException {
        balancer.destroy();
        balancer.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Three nodes behind the balancer, one a process of its own that is killed ({@code SIGKILL}) while each node holds
     * a device; devices connect at once, before any health check can have noticed: a balancer that sends them to the
     * dead node (it holds no device now, so least-connections prefers it) must retry them on a survivor, and every
     * device connects on its first attempt, spread over both survivors.
     */
    static void devicesConnectRightAfterANodeIsKilled(Path dir, Balancer balancer) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        ProcessNode doomed = ProcessNode.start(shippedNode(pki, dir, "gw1"), dir.resolve("gw1.log"));
        List<SSLSocket> held = new ArrayList<>();
        try (Gateway gw2 = shippedNode(pki, dir, "gw2").start(); Gateway gw3 = shippedNode(pki, dir, "gw3").start()) {
            List<Gateway> survivors = List.of(gw2, gw3);
            int front = freePort();
            Process proxy = balancer.start(dir, front, addresses(doomed, survivors));
            try {
                Thread.sleep(balancer.settleMillis());
                for (String id : List.of("dev-a", "dev-b", "dev-c")) {
                    held.add(connectThrough(pki.clientContext(pki.device(id)), front, id));
                }
                assertEquals(1L, gw2.registry().size(), "least connections gave every node one device");
                assertEquals(1L, gw3.registry().size(), "least connections gave every node one device");

                doomed.kill();
                List<String> failures = new ArrayList<>();
                Map<String, Integer> moved = new TreeMap<>();
                for (int i = 0; i < 8; i++) {
                    String id = "moved-" + i;
                    try {
                        held.add(connectThrough(pki.clientContext(pki.device(id)), front, id));
                        moved.merge(holderOf(id, survivors).config().nodeId(), 1, Integer::sum);
                    } catch (Exception | AssertionError refused) {
                        failures.add(id + ": " + refused);
                    }
                }
                assertEquals(List.of(), failures, "devices refused while the balancer still counted the dead node "
                        + "as up (" + balancer.log(dir) + ")");
                assertEquals(2, moved.size(), "the devices landed on both survivors: " + moved);
            } finally {
                for (SSLSocket s : held) {
                    s.close();
                }
                stop(proxy);
            }
        } finally {
            doomed.kill();
        }
    }

    /**
     * Three nodes behind the balancer, one a process of its own that gets SIGTERM (as {@code systemctl stop} or a
     * rolling restart sends it) with the shipped {@code shutdown.ready-grace}. Devices that hold their connection and
     * reconnect when it closes, and new devices arriving all along: every attempt succeeds (counted on the device
     * side), and every device ends up on one of the two other nodes, the moved ones on both.
     */
    static void devicesMoveOffADrainingNodeWithoutAFailedAttempt(Path dir, Balancer balancer) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        ProcessNode leavingNode = ProcessNode.start(shippedNode(pki, dir, "gw1")
                .with("shutdown.ready-grace", CoreConfigKeys.SHUTDOWN_READY_GRACE.defaultValue())
                .with("shutdown.drain-rate", "5").with("shutdown.timeout", "30s"), dir.resolve("gw1.log"));
        Process leaving = leavingNode.process();
        List<RoamingDevice> devices = new ArrayList<>();
        try (Gateway gw2 = shippedNode(pki, dir, "gw2").start(); Gateway gw3 = shippedNode(pki, dir, "gw3").start()) {
            List<Gateway> staying = List.of(gw2, gw3);
            int front = freePort();
            Process proxy = balancer.start(dir, front, addresses(leavingNode, staying));
            try {
                Thread.sleep(balancer.settleMillis());
                for (int i = 0; i < 12; i++) {
                    devices.add(RoamingDevice.start(pki, front, "held-" + i));
                }
                await(() -> devices.stream().allMatch(d -> d.connects.get() == 1), "every device connected");
                long onStaying = gw2.registry().size() + gw3.registry().size();
                assertTrue(gw2.registry().size() > 0 && gw3.registry().size() > 0 && onStaying < devices.size(),
                        "least connections spread the devices over all three nodes (" + gw2.registry().size() + ", "
                        + gw3.registry().size() + " of " + devices.size() + " on the staying nodes)");

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
                assertEquals(143, leaving.exitValue(), Files.readString(leavingNode.log()));
                long drainedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStarted);
                devices.stream().filter(d -> d.churn).forEach(RoamingDevice::stop);
                long holding = devices.stream().filter(d -> !d.churn).count();
                await(() -> gw2.registry().size() + gw3.registry().size() == holding, "every device on the staying "
                        + "nodes (" + gw2.registry().size() + " + " + gw3.registry().size() + " of " + holding + ")");
                int failed = devices.stream().mapToInt(d -> d.failed.get()).sum();
                Map<String, Integer> moved = new TreeMap<>();
                for (RoamingDevice d : devices) {
                    if (!d.churn && d.connects.get() > 1) {
                        moved.merge(holderOf(d.id, staying).config().nodeId(), 1, Integer::sum);
                    }
                }
                long churned = devices.stream().filter(d -> d.churn).mapToInt(d -> d.connects.get()).sum();
                assertEquals(0, failed, "failed connection attempts (moved " + moved + ", " + churned
                        + " short connections, drain took " + drainedMs + " ms): " + devices.stream()
                        .filter(d -> d.failed.get() > 0).map(d -> d.id + ": " + d.lastFailure).toList() + "\n"
                        + balancer.log(dir));
                assertEquals(2, moved.size(), "the devices of the leaving node landed on both other nodes: " + moved);
            } finally {
                devices.forEach(RoamingDevice::stop);
                stop(proxy);
            }
        } finally {
            leaving.destroyForcibly();
            leaving.waitFor(30, TimeUnit.SECONDS);
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
        final AtomicInteger connects = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
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
            Random random = new Random(id.hashCode());
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
                    } catch (SocketTimeoutException idle) {
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
}
