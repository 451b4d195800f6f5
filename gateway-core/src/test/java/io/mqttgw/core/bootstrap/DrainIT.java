package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.testkit.AdminCalls.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.exceptions.ConnectionClosedException;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node drained through the operator API ({@code POST /drain}, {@code gateway drain}) as real devices see it: only an
 * authenticated operator may start it; {@code /health/ready} answers 503 while devices are still accepted for the
 * grace; then MQTT 5.0 devices (Paho) are told 0x9C with the Server Reference, or 0x8B, and 3.1.1 devices (HiveMQ
 * client) are closed; then the node exits, or stays up not ready.
 */
class DrainIT {
    @TempDir
    Path dir;


    private static int ready(Gateway g) throws Exception {
        return call("GET", g.adminPort(), "/health/ready", null).statusCode();
    }

    /** A Paho MQTT 5.0 device over mutual TLS whose server DISCONNECT completes {@code told}. */
    private static MqttClient paho5(TestPki pki, Gateway g, String id, CompletableFuture<MqttDisconnectResponse> told)
            throws Exception {
        MqttClient c = Mqtt5PahoIT.paho(g, id);
        c.setCallback(Mqtt5PahoIT.toldWith(told));
        org.eclipse.paho.mqttv5.client.MqttConnectionOptions o = new org.eclipse.paho.mqttv5.client
                .MqttConnectionOptions();
        o.setSocketFactory(pki.clientContext(pki.device(id)).getSocketFactory());
        o.setHttpsHostnameVerificationEnabled(false);
        o.setCleanStart(true);
        o.setConnectionTimeout(15);
        o.setAutomaticReconnect(false);
        c.connect(o);
        return c;
    }

    /** A HiveMQ MQTT 3.1.1 device whose loss of the connection completes {@code lost} with its cause. */
    private static Mqtt3AsyncClient device311(TestPki pki, Gateway g, String id, CompletableFuture<Throwable> lost) {
        Mqtt3AsyncClient d = TestDevices.mutualTls(pki, g.tlsPort(), id)
                .addDisconnectedListener(c -> lost.complete(c.getCause())).buildAsync();
        d.connect().join();
        return d;
    }

    private static boolean canConnect(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void onlyAnAuthenticatedOperatorMayDrainTheNode() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            int admin = gateway.adminPort();
            HttpResponse<String> none = call("POST", admin, "/drain", null);
            assertEquals(401, none.statusCode(), none.body());
            assertEquals(401, call("POST", admin, "/drain", "wrong-0123456789abcdef0123456789abcdef").statusCode());
            assertEquals(401, call("POST", admin, "/drain", TestGateway.OPERATOR_TOKEN + "x").statusCode());
            assertEquals(405, call("GET", admin, "/drain", TestGateway.OPERATOR_TOKEN).statusCode());
            HttpResponse<String> bad = call("POST", admin, "/drain?exit=maybe", TestGateway.OPERATOR_TOKEN);
            assertEquals(400, bad.statusCode(), bad.body());
            assertEquals(200, ready(gateway), "no refused request started a drain");
            CompletableFuture<MqttDisconnectResponse> told = new CompletableFuture<>();
            MqttClient device = paho5(pki, gateway, "dev-after", told);
            assertTrue(device.isConnected(), "the node still takes devices");
            device.disconnect();
            device.close(true);
            assertFalse(told.isDone(), "nobody was told to leave");
        }
    }

    @Test
    void keepsAcceptingDuringTheGraceThenSendsMqtt5DevicesToAnotherServerAndClosesMqtt311Ones() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("shutdown.ready-grace", "3s").with("shutdown.drain-rate", "100")
                .with("shutdown.server-reference", "gw2.example.net:8883").start()) {
            CompletableFuture<MqttDisconnectResponse> toldEarly = new CompletableFuture<>();
            MqttClient early = paho5(pki, gateway, "dev-early", toldEarly);
            CompletableFuture<Throwable> lost311 = new CompletableFuture<>();
            Mqtt3AsyncClient old = device311(pki, gateway, "dev-311", lost311);

            HttpResponse<String> accepted = call("POST", gateway.adminPort(), "/drain?exit=false",
                    TestGateway.OPERATOR_TOKEN);
            assertEquals(202, accepted.statusCode(), accepted.body());
            assertTrue(accepted.body().contains("\"serverReference\":\"gw2.example.net:8883\""), accepted.body());
            assertTrue(accepted.body().contains("\"devices\":2"), accepted.body());
            long drainStarted = System.nanoTime();
            assertEquals(503, ready(gateway), "the balancer is told at once");

            // within the grace: a device the balancer still sends here is accepted, and ready stays 503
            CompletableFuture<MqttDisconnectResponse> toldLate = new CompletableFuture<>();
            MqttClient late = paho5(pki, gateway, "dev-late", toldLate);
            long connectedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStarted);
            assertTrue(late.isConnected());
            assertTrue(connectedAfterMs < 3000, "connected within the grace (after " + connectedAfterMs + " ms)");
            assertEquals(503, ready(gateway));
            assertFalse(toldEarly.isDone(), "nobody is closed during the grace");

            for (CompletableFuture<MqttDisconnectResponse> told : java.util.List.of(toldEarly, toldLate)) {
                MqttDisconnectResponse r = told.get(30, TimeUnit.SECONDS);
                assertEquals(0x9C, r.getReturnCode(), "use another server");
                assertEquals("gw2.example.net:8883", r.getServerReference());
            }
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStarted) >= 2500,
                    "closed only after the grace");
            assertInstanceOf(ConnectionClosedException.class, lost311.get(30, TimeUnit.SECONDS),
                    "3.1.1 has no server DISCONNECT: a plain close");
            // a close is counted when its channel goes inactive, after the device already read the DISCONNECT:
            // wait for all three, in whichever order the drain closed them
            long deadline = System.currentTimeMillis() + 30_000;
            while ((gateway.metrics().disconnects(DisconnectReason.SHUTDOWN) < 1
                    || gateway.metrics().disconnects(DisconnectReason.USE_ANOTHER_SERVER) < 2)
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(2, gateway.metrics().disconnects(DisconnectReason.USE_ANOTHER_SERVER));
            assertEquals(1, gateway.metrics().disconnects(DisconnectReason.SHUTDOWN));

            // exit=false: drained, still up for its metrics, taking no devices
            assertFalse(gateway.terminated().isDone());
            assertEquals(503, ready(gateway));
            assertEquals(200, call("GET", gateway.adminPort(), "/health/live", null).statusCode());
            assertFalse(canConnect(gateway.tlsPort()), "the device port is closed once drained");
            early.close(true);
            late.close(true);
            assertThrows(Exception.class, () -> old.disconnect().get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void gatewayDrainTellsMqtt5DevicesServerShuttingDownAndTheNodeExits() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).with("shutdown.ready-grace", "1s").start();
        try {
            CompletableFuture<MqttDisconnectResponse> told = new CompletableFuture<>();
            MqttClient device = paho5(pki, gateway, "dev-5", told);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = GatewayMain.run(new String[] {"drain", "--admin-url", "http://127.0.0.1:"
                    + gateway.adminPort(), "--token-file", dir.resolve("admin-tokens").toString()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                            StandardCharsets.UTF_8));
            assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
            String answer = out.toString(StandardCharsets.UTF_8);
            assertTrue(answer.contains("\"state\":\"draining\"") && answer.contains("\"exit\":true"), answer);
            MqttDisconnectResponse r = told.get(30, TimeUnit.SECONDS);
            assertEquals(0x8B, r.getReturnCode(), "server shutting down");
            gateway.terminated().get(60, TimeUnit.SECONDS);
            assertEquals(1, gateway.metrics().disconnects(DisconnectReason.SHUTDOWN));
            device.close(true);
        } finally {
            gateway.close();
        }
    }
}
