package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Devices over real mutual-TLS sockets with the HiveMQ MQTT client, against one gateway on embedded defaults. */
class MutualTlsIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("mqtt.connect-timeout", "1s").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static Mqtt3BlockingClient client(String clientId, X509Bundle certificate) {
        return TestDevices.mutualTls(pki, gateway.tlsPort(), clientId, certificate).buildBlocking();
    }

    static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void connectsDeviceWithValidCertificate() {
        Mqtt3BlockingClient c = client("dev-ok", pki.device("dev-ok"));
        assertEquals(Mqtt3ConnAckReturnCode.SUCCESS, c.connect().getReturnCode());
        assertTrue(gateway.registry().find("dev-ok") != null);
        c.disconnect();
    }

    @Test
    void refusesDeviceWithoutClientCertificate() throws InterruptedException {
        double before = gateway.metrics().tlsFailures(TlsFailureReason.HANDSHAKE_FAILED);
        Mqtt3BlockingClient c = client("dev-nocert", null);
        assertThrows(RuntimeException.class, c::connect);
        assertEquals(MqttClientState.DISCONNECTED, c.getState());
        awaitTrue("handshake failure counted",
                () -> gateway.metrics().tlsFailures(TlsFailureReason.HANDSHAKE_FAILED) > before);
    }

    @Test
    void refusesCertificateFromUnknownCa() throws InterruptedException {
        double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_UNKNOWN_CA);
        javax.net.ssl.SSLContext foreign = pki.clientContext(pki.untrustedDevice("dev-foreign"));
        assertThrows(IOException.class, () -> {
            try (RawMqttConnection raw = RawMqttConnection.tls(foreign, gateway.tlsPort())) {
                // TLS 1.3: the client learns of the rejection on its first read after the handshake
                raw.connect("dev-foreign", 60);
            }
        });
        awaitTrue("certificate rejection counted",
                () -> gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_UNKNOWN_CA) > before);
        assertTrue(gateway.registry().find("dev-foreign") == null);
    }

    @Test
    void refusesExpiredCertificate() throws InterruptedException {
        double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_EXPIRED);
        Mqtt3BlockingClient c = client("dev-expired", pki.expiredDevice("dev-expired"));
        assertThrows(RuntimeException.class, c::connect);
        awaitTrue("expiry counted",
                () -> gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_EXPIRED) > before);
        assertTrue(gateway.registry().find("dev-expired") == null);
    }

    @Test
    void refusesClientIdThatDiffersFromCertificateIdentity() {
        Mqtt3BlockingClient c = client("someone-else", pki.device("dev-real"));
        Mqtt3ConnAckException e = assertThrows(Mqtt3ConnAckException.class, c::connect);
        assertEquals(Mqtt3ConnAckReturnCode.IDENTIFIER_REJECTED, e.getMqttMessage().getReturnCode());
    }

    @Test
    void kicksOlderChannelOnSameClientId() throws InterruptedException {
        X509Bundle cert = pki.device("dev-twice");
        Mqtt3BlockingClient first = client("dev-twice", cert);
        first.connect();
        io.netty.channel.Channel firstChannel = gateway.registry().find("dev-twice");
        double takeovers = gateway.metrics().disconnects(DisconnectReason.TAKEOVER);
        Mqtt3BlockingClient second = client("dev-twice", cert);
        second.connect();
        awaitTrue("older channel closed", () -> !firstChannel.isActive());
        awaitTrue("takeover counted", () -> gateway.metrics().disconnects(DisconnectReason.TAKEOVER) > takeovers);
        assertNotEquals(firstChannel, gateway.registry().find("dev-twice"));
        assertTrue(gateway.registry().find("dev-twice").isActive());
        second.disconnect();
    }

    @Test
    void answersPingRequestWithPingResponse() throws IOException {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-ping")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-ping", 60));
            raw.send(new byte[] {(byte) 0xC0, 0x00});
            byte[] response = raw.readPacket();
            assertEquals((byte) 0xD0, response[0]);
            assertEquals(2, response.length);
        }
    }

    @Test
    void closesSessionAfterOneAndAHalfKeepalivePeriods() throws IOException, InterruptedException {
        double before = gateway.metrics().disconnects(DisconnectReason.KEEPALIVE_TIMEOUT);
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-silent")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-silent", 1));
            long start = System.nanoTime();
            assertTrue(raw.closedWithin(4000), "gateway closes a silent device");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms >= 1000, "not before the keepalive period: " + ms + " ms");
        }
        awaitTrue("keepalive timeout counted",
                () -> gateway.metrics().disconnects(DisconnectReason.KEEPALIVE_TIMEOUT) > before);
    }

    @Test
    void closesConnectionThatSendsNoConnect() throws IOException, InterruptedException {
        double before = gateway.metrics().disconnects(DisconnectReason.CONNECT_TIMEOUT);
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-mute")),
                gateway.tlsPort())) {
            assertTrue(raw.closedWithin(4000));
        }
        awaitTrue("connect timeout counted",
                () -> gateway.metrics().disconnects(DisconnectReason.CONNECT_TIMEOUT) > before);
    }

    @Test
    void publishesQos1ThroughTheFileSink() throws Exception {
        Mqtt3BlockingClient c = client("dev-file", pki.device("dev-file"));
        c.connect();
        c.publishWith().topic("devices/dev-file/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                .payload("{\"t\":21.5}".getBytes(StandardCharsets.UTF_8)).send();
        c.disconnect();
        Path file = dir.resolve("uplink").resolve("uplink.jsonl");
        String text = java.nio.file.Files.readString(file);
        assertTrue(text.contains("\"client\":\"dev-file\""), text);
        assertTrue(text.contains("\"topic\":\"devices/dev-file/telemetry\""), text);
        String payload = java.util.Base64.getEncoder().encodeToString("{\"t\":21.5}".getBytes(StandardCharsets.UTF_8));
        assertTrue(text.contains(payload), text);
        assertTrue(gateway.metrics().connects(MqttConnectReturnCode.CONNECTION_ACCEPTED) > 0);
    }

    @Test
    void resumesTlsSessionOnReconnect() throws Exception {
        javax.net.ssl.SSLContext context = pki.clientContext(pki.device("dev-resume"));
        try (RawMqttConnection raw = RawMqttConnection.tls(context, gateway.tlsPort())) {
            // TLS 1.3 sends the session ticket after the handshake; a packet round trip makes sure it arrived
            assertEquals(0, raw.connect("dev-resume", 60));
        }
        double resumedBefore = gateway.metrics().tlsHandshakes(true);
        try (RawMqttConnection raw = RawMqttConnection.tls(context, gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-resume", 60));
        }
        assertEquals(resumedBefore + 1, gateway.metrics().tlsHandshakes(true), "the second handshake resumed");
    }

    @Test
    void servesOtherDevicesWhileOneFailsItsHandshake() throws Exception {
        Mqtt3BlockingClient healthy = client("dev-steady", pki.device("dev-steady"));
        healthy.connect();
        try (var plain = new java.net.Socket("127.0.0.1", gateway.tlsPort())) {
            plain.getOutputStream().write(RawMqttConnection.connectPacket("plain", 60, 4));
            plain.setSoTimeout(3000);
            assertEquals(-1, plain.getInputStream().read(), "plain MQTT on the TLS port is closed");
        } catch (java.net.SocketException reset) {
            // a reset is also a close
        }
        healthy.publishWith().topic("devices/dev-steady/telemetry").qos(MqttQos.AT_LEAST_ONCE).payload(new byte[] {1})
                .send();
        assertEquals(MqttClientState.CONNECTED, healthy.getState());
        healthy.disconnect();
        assertFalse(gateway.metrics().tlsFailures(TlsFailureReason.NOT_TLS) == 0);
    }

    static X509Certificate serverCertificate(int port) throws IOException {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-peek")), port)) {
            return (X509Certificate) ((SSLSocket) raw.socket()).getSession().getPeerCertificates()[0];
        } catch (SSLException e) {
            throw new IOException(e);
        }
    }


    @Test
    void closesADeviceThatPublishesOutsideItsOwnTopics() throws Exception {
        double before = gateway.metrics().disconnects(DisconnectReason.NOT_AUTHORIZED);
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-nosy")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-nosy", 60));
            raw.send(RawMqttConnection.publishPacket(0x32, RawMqttConnection.utf8("devices/someone-else/cmd"), 1,
                    new byte[] {1}));
            assertTrue(raw.closedWithin(3000), "a PUBLISH to another device's topics closes the connection");
        }
        awaitTrue("not_authorized counted",
                () -> gateway.metrics().disconnects(DisconnectReason.NOT_AUTHORIZED) > before);
    }
}
