package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ListenerBindException;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A port another process already holds stops startup with a message that names that port's key and address only,
 * so the operator changes the one key that is wrong; the listeners bound before it are released.
 */
class PortInUseIT {
    private static final List<String> PORT_KEYS = List.of("listener.tls.port", "listener.tcp.port", "admin.port",
            "admin.operations.port");

    @TempDir
    Path dir;

    @Test
    void namesTheTlsPortAndItsKeyWhenAnotherProcessHoldsIt() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Path config = Files.writeString(dir.resolve("gateway.yaml"), "listener:\n  tls:\n    bind: 127.0.0.1\n"
                    + "    port: " + port + "\n    cert-file: " + pki.certFile() + "\n    key-file: " + pki.keyFile()
                    + "\n    ca-file: " + pki.caFile() + "\nadmin:\n  bind: 127.0.0.1\n  port: 0\n");
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = GatewayMain.run(new String[] {"run", "--config", config.toString()},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String message = err.toString(StandardCharsets.UTF_8).strip();
            assertEquals(3, status, message);
            assertTrue(message.startsWith("cannot start: listener.tls.port=" + port + ": cannot listen on 127.0.0.1:"
                    + port + ": "), message);
            assertOnlyKey("listener.tls.port", message);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"listener.tcp.port", "admin.port", "admin.operations.port"})
    void namesOnlyTheKeyOfTheListenerWhosePortIsTaken(String key) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        // the device TLS listener binds before the others, on a port of its own
        String tlsPort = Integer.toString(freePort());
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            TestGateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).with("listener.tls.port", tlsPort)
                    .with("listener.tcp.enabled", "true").with("admin.operations.port", "0")
                    .with(key, Integer.toString(port));
            ListenerBindException e = assertThrows(ListenerBindException.class, gateway::start);
            assertEquals(key, e.key());
            assertTrue(e.getMessage().startsWith(key + "=" + port + ": cannot listen on 127.0.0.1:" + port),
                    e.getMessage());
            assertOnlyKey(key, e.getMessage());
        }
        // the listener bound before the failure was closed with it: its port starts a node now
        try (Gateway started = TestGateway.tls(pki, dir).with("listener.tls.port", tlsPort).start()) {
            assertEquals(Integer.parseInt(tlsPort), started.tlsPort());
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void assertOnlyKey(String key, String message) {
        for (String other : PORT_KEYS) {
            if (!other.equals(key)) {
                assertFalse(message.contains(other), other + " in: " + message);
            }
        }
    }
}
