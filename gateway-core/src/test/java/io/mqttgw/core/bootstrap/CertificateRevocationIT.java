package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.HandshakeKind;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CRLs from listener.tls.crl-file refuse revoked devices at the handshake; certificate expiry shows in metrics. */
class CertificateRevocationIT {
    @TempDir
    Path dir;

    static void connects(SSLContext context, int port, String clientId) throws IOException {
        try (RawMqttConnection raw = RawMqttConnection.tls(context, port)) {
            assertEquals(0, raw.connect(clientId, 60));
        }
    }

    static void refused(SSLContext context, int port, String clientId) {
        assertThrows(IOException.class, () -> {
            try (RawMqttConnection raw = RawMqttConnection.tls(context, port)) {
                // TLS 1.3: the client learns of the refusal on its first read after the handshake
                raw.connect(clientId, 60);
            }
        });
    }

    @Test
    void refusesADeviceOnceACrlListsItWithoutARestart() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        X509Bundle good = pki.device("dev-good");
        X509Bundle stolen = pki.device("dev-stolen");
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString()).start()) {
            connects(pki.clientContext(stolen), gateway.tlsPort(), "dev-stolen");

            pki.writeCrl(crl, stolen);
            assertTrue(gateway.reloadTls(), "the changed CRL file makes a new context");
            double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED);
            refused(pki.clientContext(stolen), gateway.tlsPort(), "dev-stolen");
            long deadline = System.currentTimeMillis() + 5000;
            while (gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED) <= before
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(before + 1, gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED));
            connects(pki.clientContext(good), gateway.tlsPort(), "dev-good");
        }
    }

    @Test
    void aCrlUpdateLeavesTheDevicesItDoesNotRevokeKnown() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        X509Bundle kept = pki.device("dev-kept");
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString()).start()) {
            connects(pki.clientContext(kept), gateway.tlsPort(), "dev-kept");
            pki.writeCrl(crl, pki.device("dev-other"));
            assertTrue(gateway.reloadTls(), "the changed CRL file makes a new context");
            double known = gateway.admission().handshakesCompleted(HandshakeKind.KNOWN_DEVICE);
            // a new client context: a full handshake, no resumption
            connects(pki.clientContext(kept), gateway.tlsPort(), "dev-kept");
            assertEquals(known + 1, gateway.admission().handshakesCompleted(HandshakeKind.KNOWN_DEVICE),
                    "the certificate verified before the CRL update needs no signature check after it");
        }
    }

    @Test
    void admitsDevicesOfAnIssuerThatHasNoCrlInTheFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeForeignCrl(dir.resolve("other.crl"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.crl-file", crl.toString()).start()) {
            connects(pki.clientContext(pki.device("dev-1")), gateway.tlsPort(), "dev-1");
        }
    }

    @Test
    void countsConnectedDevicesWhoseCertificateExpiresSoon() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("identity.expiry-warning", "2d").start();
             RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-exp")),
                     gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-exp", 60));
            var meters = gateway.metrics().registry();
            assertEquals(1.0, meters.get("mqttgw.device.certificates.expiring").gauge().value(),
                    "the test device certificate ends within a day, inside the 2-day warning");
            double soonest = meters.get("mqttgw.device.certificate.soonest.expiry").gauge().value();
            assertTrue(soonest > 3600 && soonest <= 86_400, "seconds left: " + soonest);
        }
    }
}
