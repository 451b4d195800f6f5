package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.CertificateRevocationIT.connects;
import static io.mqttgw.core.bootstrap.CertificateRevocationIT.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.CaRotation;
import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Revocation as a device meets it over real TLS sockets: during a CA rotation (two CAs of one name in ca-file, a CRL
 * from each) and when a reloaded CRL revokes a device that is already connected.
 */
class CrlRotationAndReloadIT {
    private static final String NAME = "CN=Fleet CA";

    @TempDir
    Path dir;

    private static void waitFor(DoubleSupplier value, double atLeast) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (value.getAsDouble() < atLeast && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"lean", "pkix"})
    void refusesTheDevicesRevokedByEitherCaOfARotationAndAdmitsTheOthers(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle oldCa = CaRotation.authority(NAME);
        X509Bundle newCa = CaRotation.authority(NAME);
        X509Bundle stolenOld = CaRotation.device("stolen-old", oldCa, BigInteger.valueOf(501));
        X509Bundle stolenNew = CaRotation.device("stolen-new", newCa, BigInteger.valueOf(502));
        // the same serial as the one the old CA revoked: a list is its own CA's only
        X509Bundle goodNew = CaRotation.device("good-new", newCa, BigInteger.valueOf(501));
        X509Bundle goodOld = CaRotation.device("good-old", oldCa, BigInteger.valueOf(503));
        Path cas = CaRotation.write(dir.resolve("cas.pem"), CaRotation.pem(oldCa, newCa));
        Instant hourAgo = Instant.now().minus(1, ChronoUnit.HOURS);
        Path crls = CaRotation.write(dir.resolve("cas.crl"),
                CaRotation.crl(newCa, hourAgo.minus(1, ChronoUnit.HOURS), stolenNew),
                CaRotation.crl(oldCa, hourAgo, stolenOld));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.ca-file", cas.toString())
                .with("listener.tls.crl-file", crls.toString()).with("listener.tls.verifier", verifier).start()) {
            int port = gateway.tlsPort();
            refused(pki.clientContext(stolenOld), port, "stolen-old");
            refused(pki.clientContext(stolenNew), port, "stolen-new");
            waitFor(() -> gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED), 2);
            assertEquals(2, gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED),
                    "both refused as revoked, not as another failure");
            connects(pki.clientContext(goodOld), port, "good-old");
            connects(pki.clientContext(goodNew), port, "good-new");
        }
    }

    @Test
    void aReloadedCrlDisconnectsTheConnectedDeviceItRevokesAndNoOther() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle stolen = pki.device("dev-stolen");
        X509Bundle kept = pki.device("dev-kept");
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        try (EventLogCapture log = new EventLogCapture();
             Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString()).start();
             RawMqttConnection stolenDevice = RawMqttConnection.tls(pki.clientContext(stolen), gateway.tlsPort());
             RawMqttConnection keptDevice = RawMqttConnection.tls(pki.clientContext(kept), gateway.tlsPort())) {
            assertEquals(0, stolenDevice.connect5("dev-stolen", 60));
            assertEquals(0, keptDevice.connect5("dev-kept", 60));
            double before = gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED);

            pki.writeCrl(crl, stolen);
            assertTrue(gateway.reloadTls(), "the changed CRL file makes a new context");

            assertEquals(0x87, stolenDevice.readDisconnect(), "MQTT 5.0: not authorized, then the close");
            assertTrue(stolenDevice.closedWithin(5000));
            waitFor(() -> gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED), before + 1);
            assertEquals(before + 1, gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED));
            String serial = "serial=" + stolen.getCertificate().getSerialNumber().toString(16);
            // the tests' loggers are asynchronous: the line may land after the close
            waitFor(() -> log.lines().stream().filter(l -> l.contains("certificate revoked client=dev-stolen")
                    && l.contains(serial)).count(), 1);
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("certificate revoked client=dev-stolen")
                    && l.contains(serial)), log.lines().toString());

            keptDevice.send(RawMqttConnection.packet(0xC0, new byte[0]));
            assertEquals(0xD0, keptDevice.readPacket()[0] & 0xF0, "the other device still gets its PINGRESP");
        }
    }

    @Test
    void aDeviceWhoseConnectWasPendingDuringTheReloadIsDisconnectedOnceAccepted() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle stolen = pki.device("dev-late");
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        // a CONNECT is decided within 2 s + 100 ms, so the second walk comes about 3.1 s after the reload
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString())
                .with("mqtt.connect-timeout", "2s").with("auth.timeout", "100ms").start();
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(stolen), gateway.tlsPort())) {
            pki.writeCrl(crl, stolen);
            assertTrue(gateway.reloadTls());
            // verified under the old CRL, registered after the reload's first walk
            assertEquals(0, device.connect5("dev-late", 60));
            device.socket().setSoTimeout(15_000);
            assertEquals(0x87, device.readDisconnect(), "closed by the walk made once pending CONNECTs are decided");
        }
    }

    @Test
    void pacesTheDisconnectsAtTheConfiguredRate() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        List<X509Bundle> devices = new ArrayList<>();
        List<RawMqttConnection> connections = new ArrayList<>();
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString())
                .with("listener.tls.crl-disconnect-rate", "2").start()) {
            try {
                for (int i = 0; i < 3; i++) {
                    X509Bundle device = pki.device("dev-" + i);
                    devices.add(device);
                    RawMqttConnection c = RawMqttConnection.tls(pki.clientContext(device), gateway.tlsPort());
                    connections.add(c);
                    assertEquals(0, c.connect("dev-" + i, 60));
                }
                double before = gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED);
                pki.writeCrl(crl, devices.toArray(new X509Bundle[0]));
                long start = System.nanoTime();
                assertTrue(gateway.reloadTls());
                waitFor(() -> gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED), before + 1);
                waitFor(() -> gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED), before + 3);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertEquals(before + 3, gateway.metrics().disconnects(DisconnectReason.CERTIFICATE_REVOKED));
                // at 2 a second the third close comes a second after the first, never sooner
                assertTrue(millis >= 950, "three closes at 2/s took " + millis + " ms");
            } finally {
                for (RawMqttConnection c : connections) {
                    c.close();
                }
            }
        }
    }
}
