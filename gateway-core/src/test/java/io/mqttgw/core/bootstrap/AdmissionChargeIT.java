package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.HandshakeKind;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission charges every connection a full handshake and gives back what a known device's or a resumed session's
 * handshake did not cost: real TLS 1.3 sockets (the JDK client, which offers its session ticket when it reconnects
 * with the same context) against one gateway.
 */
class AdmissionChargeIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("listener.tls.protocols", "TLSv1.3")
                .with("admission.connection-rate", "1000").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static double completed(HandshakeKind kind) {
        return gateway.admission().handshakesCompleted(kind);
    }

    private static double refunded() {
        return gateway.metrics().registry().get("mqttgw.admission.refunded").counter().count();
    }

    private static void connectOnce(SSLContext context, String device) throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(context, gateway.tlsPort())) {
            // TLS 1.3 sends the ticket after the handshake; the CONNACK round trip makes sure it arrived
            assertEquals(0, raw.connect(device, 60));
            assertEquals("TLSv1.3", ((SSLSocket) raw.socket()).getSession().getProtocol());
        }
    }

    @Test
    void chargesAnUnknownDeviceAFullHandshakeAKnownOneLessAndAResumedSessionLeast() throws Exception {
        var device = pki.device("dev-charged");
        double full = completed(HandshakeKind.FULL);
        double known = completed(HandshakeKind.KNOWN_DEVICE);
        double resumed = completed(HandshakeKind.RESUMED);
        double refundedBefore = refunded();
        double tlsResumed = gateway.metrics().tlsHandshakes(true);

        connectOnce(pki.clientContext(device), "dev-charged");
        assertEquals(full + 1, completed(HandshakeKind.FULL), "a certificate the verifier never saw");
        assertEquals(refundedBefore, refunded(), 1e-9, "a full handshake gets nothing back");

        SSLContext second = pki.clientContext(device);
        connectOnce(second, "dev-charged");
        assertEquals(known + 1, completed(HandshakeKind.KNOWN_DEVICE), "new TLS session, certificate known");
        double afterKnown = refunded();
        assertTrue(afterKnown > refundedBefore, "a known device gets part of its charge back");

        connectOnce(second, "dev-charged");
        assertEquals(resumed + 1, completed(HandshakeKind.RESUMED), "the client offered its ticket and resumed");
        assertEquals(tlsResumed + 1, gateway.metrics().tlsHandshakes(true), 0.0,
                "the TLS layer counts the same handshake as resumed");
        assertTrue(refunded() - afterKnown > afterKnown - refundedBefore,
                "a resumed session gets more back than a known device");
    }
}
