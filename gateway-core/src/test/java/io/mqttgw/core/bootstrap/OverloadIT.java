package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flood of handshakes past overload.handshake-rate. By default the node is only busy: new connections wait in the
 * listen backlog, the port stays open and nobody is refused. Counted as overload (overload.lag-reaction: overload),
 * the node closes its port and fails /health/ready (while /health/live stays 200) while existing devices keep their
 * PINGRESPs, and reopens once the flood is over.
 */
class OverloadIT {
    @TempDir
    Path dir;

    static void await(String what, BooleanSupplier condition, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    static boolean portOpen(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int health(Gateway gateway) {
        return status(gateway, "/health/ready");
    }

    static int status(Gateway gateway, String path) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gateway.adminPort() + path)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void closesThePortUnderAHandshakeFloodKeepsHeartbeatsAndReopens() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir)
                .with("overload.handshake-rate", "15").with("overload.handshake-rate-exit", "3")
                .with("overload.lag-reaction", "overload").with("overload.min-hold", "1s")
                .with("overload.interval", "100ms").with("overload.recovery-hold", "3s").start();
             RawMqttConnection steady = RawMqttConnection.tls(pki.clientContext(pki.device("dev-steady")),
                     gateway.tlsPort())) {
            assertEquals(0, steady.connect("dev-steady", 60));
            int port = gateway.tlsPort();
            SSLContext flood = pki.clientContext(pki.device("dev-flood"));

            long until = System.currentTimeMillis() + 3000;
            while (!gateway.overloaded() && System.currentTimeMillis() < until) {
                try (RawMqttConnection c = RawMqttConnection.tls(flood, port)) {
                    c.socket().setSoLinger(true, 0);
                } catch (IOException closedAlready) {
                    // the port closes under the flood
                }
            }
            assertTrue(gateway.overloaded(), "the handshake flood overloads the node");
            await("listening port closed", () -> !portOpen(port), 2000);
            await("/health/ready fails so the balancer looks elsewhere", () -> health(gateway) == 503, 2000);
            assertEquals(503, status(gateway, "/health"), "/health is the same question as /health/ready");
            assertEquals(200, status(gateway, "/health/live"), "liveness holds: a restart would only add a storm");
            assertTrue(gateway.metrics().registry().get("mqttgw.overload.level").gauge().value() == 1.0);
            assertEquals(0.0, gateway.metrics().registry().get("mqttgw.listeners.open").gauge().value(),
                    "the alert MqttGatewayListenerClosed sees the closed port");

            steady.send(new byte[] {(byte) 0xC0, 0});
            assertEquals((byte) 0xD0, steady.readPacket()[0], "an existing device still gets its PINGRESP");

            await("port reopened after recovery", () -> portOpen(port), 10_000);
            await("/health/ready back to 200", () -> health(gateway) == 200, 2000);
            assertEquals(1.0, gateway.metrics().registry().get("mqttgw.listeners.open").gauge().value());
            try (RawMqttConnection again = RawMqttConnection.tls(pki.clientContext(pki.device("dev-after")), port)) {
                assertEquals(0, again.connect("dev-after", 60));
            }
        }
    }

    @Test
    void aHandshakeFloodMakesTheNodeBusyWithoutClosingThePortOrRefusingAnyone() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir)
                .with("overload.handshake-rate", "15").with("overload.handshake-rate-exit", "3")
                .with("overload.min-hold", "1s").with("overload.interval", "100ms").start();
             RawMqttConnection steady = RawMqttConnection.tls(pki.clientContext(pki.device("dev-steady")),
                     gateway.tlsPort())) {
            assertEquals(0, steady.connect("dev-steady", 60));
            int port = gateway.tlsPort();
            SSLContext flood = pki.clientContext(pki.device("dev-flood"));
            java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread flooder = new Thread(() -> {
                while (flooding.get()) {
                    try (RawMqttConnection c = RawMqttConnection.tls(flood, port)) {
                        c.socket().setSoLinger(true, 0);
                    } catch (IOException e) {
                        // counted by the gateway's meters, asserted below
                    }
                }
            }, "flood");
            flooder.start();
            try {
                await("the handshake flood makes the node busy", () -> gateway.admission().busy(), 30_000);
            } finally {
                flooding.set(false);
            }
            assertFalse(gateway.overloaded(), "busy is not overload");
            assertTrue(portOpen(port), "the port stays open");
            assertEquals(200, health(gateway));
            steady.send(new byte[] {(byte) 0xC0, 0});
            assertEquals((byte) 0xD0, steady.readPacket()[0], "an existing device still gets its PINGRESP");
            // a device arriving now waits in the backlog and gets in once the node is no longer busy
            try (RawMqttConnection late = RawMqttConnection.tls(pki.clientContext(pki.device("dev-late")), port)) {
                assertEquals(0, late.connect("dev-late", 60));
            }
            flooder.join(30_000);
            await("no longer busy", () -> !gateway.admission().busy(), 30_000);
            assertEquals(0.0, gateway.metrics().registry().get("mqttgw.admission.rejected").counters().stream()
                    .mapToDouble(c -> c.count()).sum(), "nobody was refused");
            assertEquals(0.0, gateway.metrics().registry().get("mqttgw.overload.transitions").counter().count());
        }
    }

    @Test
    void givesHandshakeSlotsBackSoMoreDevicesThanTheBudgetStayConnected() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("admission.max-handshakes", "5").start()) {
            java.util.List<RawMqttConnection> devices = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    RawMqttConnection d = RawMqttConnection.tls(pki.clientContext(pki.device("dev-" + i)),
                            gateway.tlsPort());
                    devices.add(d);
                    assertEquals(0, d.connect("dev-" + i, 60));
                }
                assertEquals(10, gateway.registry().size(), "ten sessions with a budget of five handshakes");
                assertEquals(0, gateway.admission().handshakesInProgress(), "every slot came back after its handshake");
            } finally {
                for (RawMqttConnection d : devices) {
                    d.close();
                }
            }
        }
    }
}
