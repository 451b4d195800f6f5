package io.mqttgw.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * deploy/scripts/rolling-restart.sh against a fleet played by a local HTTP server: each node's /health/ready, and a
 * restart that makes the node answer 503 for a while (draining, then starting), or for good (it never comes back).
 */
class RollingRestartScriptTest {
    private static final Path SCRIPT = Path.of("scripts/rolling-restart.sh");

    /**
     * How long a restarted node answers 503: under the script's one-second poll, so its first poll after a restart
     * sees the node not ready and the next one sees it back (one poll per node instead of two).
     */
    private static final long NOT_READY_MILLIS = 900;

    private HttpServer fleet;
    /** Until when (System.nanoTime) a node answers 503; Long.MAX_VALUE: never again 200. */
    private final Map<String, Long> notReadyUntil = new ConcurrentHashMap<>();
    /** Each restart as "node" plus whether every other node was ready at that moment. */
    private final List<String> restarts = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startFleet() throws IOException {
        fleet = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        fleet.createContext("/", exchange -> {
            String[] path = exchange.getRequestURI().getPath().split("/");
            String node = path[1];
            int status;
            if ("restart".equals(path[2])) {
                boolean othersReady = notReadyUntil.entrySet().stream()
                        .allMatch(e -> e.getKey().equals(node) || !notReady(e.getKey()));
                restarts.add(node + (othersReady ? "" : " while another node was not ready"));
                notReadyUntil.put(node, node.startsWith("broken") ? Long.MAX_VALUE
                        : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(NOT_READY_MILLIS));
                status = 200;
            } else {
                notReadyUntil.putIfAbsent(node, 0L);
                status = notReady(node) ? 503 : 200;
            }
            byte[] body = Integer.toString(status).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        fleet.start();
    }

    @AfterEach
    void stopFleet() {
        fleet.stop(0);
    }

    private boolean notReady(String node) {
        return System.nanoTime() < notReadyUntil.getOrDefault(node, 0L);
    }

    private Process run(int readyTimeoutSeconds, String... nodes) throws IOException {
        String base = "http://127.0.0.1:" + fleet.getAddress().getPort() + "/{node}";
        List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString(),
                "--ready-url", base + "/ready", "--restart", "curl -sf -o /dev/null " + base + "/restart",
                "--settle", "0", "--ready-timeout", Integer.toString(readyTimeoutSeconds)));
        command.addAll(List.of(nodes));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    @Test
    void restartsOneNodeAtATimeEachOnlyOnceTheOthersAreReady() throws Exception {
        Process p = run(5, "gw1", "gw2", "gw3");
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        assertEquals(List.of("gw1", "gw2", "gw3"), restarts, output);
        assertTrue(output.contains("restarted 3 nodes in "), output);
        for (String node : List.of("gw1", "gw2", "gw3")) {
            assertTrue(output.contains(node + ": ready again after "), output);
        }
    }

    @Test
    void stopsAtTheFirstNodeThatDoesNotComeBackAndLeavesTheRestAlone() throws Exception {
        Process p = run(2, "gw1", "broken-gw2", "gw3");
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), output);
        assertEquals(List.of("gw1", "broken-gw2"), restarts, output);
        assertTrue(output.contains("broken-gw2 not ready after 2s"), output);
    }
}
