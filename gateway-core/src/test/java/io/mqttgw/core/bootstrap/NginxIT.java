package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.BalancerFleet.awaitListening;
import static io.mqttgw.core.bootstrap.BalancerFleet.repositoryRoot;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.BalancerFleet.NodeAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped deploy/nginx/mqtt-stream.conf, as it is, with a real nginx (Debian's nginx and libnginx-mod-stream;
 * .ci/run unpacks them into .ci/tools without installing a service) in front of three nodes: one killed, or one
 * drained by SIGTERM, and no device sees a failed attempt. Open-source nginx has no active health checks, so what
 * keeps devices away from a node that is gone is only what the shipped config does with a refused connect.
 */
class NginxIT {
    private static final Pattern SERVER = Pattern.compile("^(\\s*server\\s+)\\S+:\\d+(.*)$");

    @TempDir
    Path dir;

    @Test
    void shippedConfigMovesDevicesOffAKilledNodeWithoutAFailedAttempt() throws Exception {
        BalancerFleet.devicesConnectRightAfterANodeIsKilled(dir, shippedNginx());
    }

    @Test
    void shippedConfigMovesDevicesOffADrainingNodeWithoutAFailedAttempt() throws Exception {
        BalancerFleet.devicesMoveOffADrainingNodeWithoutAFailedAttempt(dir, shippedNginx());
    }

    /** The nginx binary: NGINX, else unpacked by .ci/run, else installed; the test is skipped without one. */
    static Path requireNginx() {
        List<Path> candidates = new ArrayList<>();
        String configured = System.getenv("NGINX");
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        candidates.add(repositoryRoot().resolve(".ci/tools/usr/sbin/nginx"));
        candidates.add(Path.of("/usr/sbin/nginx"));
        Path nginx = candidates.stream().filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(nginx != null, "nginx is not available (.ci/run unpacks Debian's nginx and "
                + "libnginx-mod-stream into .ci/tools)");
        return nginx;
    }

    /**
     * The stream module beside the binary (Debian builds it as a dynamic module: usr/lib/nginx/modules relative to
     * the usr/sbin the binary is in), or none where nginx was built with it.
     */
    static Path streamModule(Path nginx) {
        Path module = nginx.toAbsolutePath().getParent().getParent()
                .resolve("lib/nginx/modules/ngx_stream_module.so");
        return Files.exists(module) ? module : null;
    }

    private BalancerFleet.Balancer shippedNginx() {
        Path nginx = requireNginx();
        return new BalancerFleet.Balancer() {
            @Override
            public Process start(Path dir, int front, List<NodeAddress> nodes) throws Exception {
                return startNginx(dir, nginx, front, nodes);
            }

            @Override
            public long settleMillis() {
                return 0; // no health checks: every node takes devices from the start
            }

            @Override
            public String log(Path dir) throws IOException {
                return Files.readString(dir.resolve("nginx.log"));
            }
        };
    }

    static Process startNginx(Path dir, Path nginx, int front, List<NodeAddress> nodes)
            throws IOException, InterruptedException {
        StringBuilder conf = new StringBuilder();
        Path module = streamModule(nginx);
        if (module != null) {
            conf.append("load_module ").append(module).append(";\n");
        }
        // a foreground nginx whose every file is in the test's directory, not in /etc, /run or /var/log
        conf.append("daemon off;\nworker_processes 1;\npid ").append(dir.resolve("nginx.pid")).append(";\n")
                .append("error_log ").append(dir.resolve("nginx.log")).append(" info;\n")
                .append("events {\n    worker_connections 1024;\n}\n")
                .append(shippedStream(front, nodes));
        Path cfg = Files.writeString(dir.resolve("nginx.conf"), conf.toString(), StandardCharsets.UTF_8);
        Process proxy = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c", cfg.toString(),
                "-e", dir.resolve("nginx.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        awaitListening(front);
        assertTrue(proxy.isAlive(), "nginx runs: " + Files.readString(dir.resolve("nginx.out"))
                + (Files.exists(dir.resolve("nginx.log")) ? Files.readString(dir.resolve("nginx.log")) : ""));
        return proxy;
    }

    /**
     * deploy/nginx/mqtt-stream.conf with its listener on {@code front} and its first server line repeated for each
     * node (the rest of that line, the failure settings, kept as shipped).
     */
    static String shippedStream(int front, List<NodeAddress> nodes) throws IOException {
        StringBuilder out = new StringBuilder();
        boolean serversWritten = false;
        for (String line : Files.readAllLines(repositoryRoot().resolve("deploy/nginx/mqtt-stream.conf"))) {
            Matcher server = SERVER.matcher(line);
            if (line.trim().startsWith("listen ")) {
                out.append("        listen 127.0.0.1:").append(front).append(";\n");
            } else if (server.matches()) {
                if (!serversWritten) {
                    for (NodeAddress n : nodes) {
                        out.append(server.group(1)).append("127.0.0.1:").append(n.tlsPort()).append(server.group(2))
                                .append('\n');
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
