package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificate files replaced on disk take effect for new handshakes without a restart; open sessions stay. */
class CertificateReloadIT {
    @TempDir
    Path dir;

    static X509Certificate serverCertificate(TestPki pki, int port) throws IOException {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-peek")), port)) {
            assertEquals(0, raw.connect("dev-peek", 60));
            return (X509Certificate) ((SSLSocket) raw.socket()).getSession().getPeerCertificates()[0];
        }
    }

    @Test
    void newHandshakesUseTheReplacedServerCertificate() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.reload-interval", "100ms").start()) {
            assertEquals("CN=localhost", serverCertificate(pki, gateway.tlsPort()).getSubjectX500Principal().getName());
            RawMqttConnection open = RawMqttConnection.tls(pki.clientContext(pki.device("dev-stays")),
                    gateway.tlsPort());
            assertEquals(0, open.connect("dev-stays", 60));

            pki.writeServer("CN=localhost,O=Rotated");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            String subject;
            do {
                Thread.sleep(50);
                subject = serverCertificate(pki, gateway.tlsPort()).getSubjectX500Principal().getName();
            } while (!subject.contains("Rotated") && System.nanoTime() < deadline);
            assertEquals("CN=localhost,O=Rotated", subject);

            open.send(new byte[] {(byte) 0xC0, 0});
            assertEquals((byte) 0xD0, open.readPacket()[0], "the session opened before the reload still works");
            open.close();
        }
    }

    @Test
    void trustsANewDeviceCaAfterTheCaFileChanged() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle newCa = new CertificateBuilder().subject("CN=Second Device CA").setIsCertificateAuthority(true)
                .ecp256().notBefore(Instant.now().minus(1, ChronoUnit.DAYS))
                .notAfter(Instant.now().plus(1, ChronoUnit.DAYS)).buildSelfSigned();
        X509Bundle device = new CertificateBuilder().subject("CN=dev-newca").ecp256().addExtendedKeyUsageClientAuth()
                .notBefore(Instant.now().minus(1, ChronoUnit.HOURS)).notAfter(Instant.now().plus(1, ChronoUnit.DAYS))
                .buildIssuedBy(newCa);
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            SSLContext context = pki.clientContext(device);
            assertThrows(IOException.class, () -> {
                try (RawMqttConnection raw = RawMqttConnection.tls(context, gateway.tlsPort())) {
                    raw.connect("dev-newca", 60);
                }
            });
            Path bundle = Files.writeString(dir.resolve("bundle.tmp"),
                    pki.ca().getCertificatePEM() + newCa.getCertificatePEM());
            Files.move(bundle, pki.caFile(), StandardCopyOption.REPLACE_EXISTING);
            assertTrue(gateway.reloadTls(), "the changed CA file makes a new context");
            try (RawMqttConnection raw = RawMqttConnection.tls(context, gateway.tlsPort())) {
                assertEquals(0, raw.connect("dev-newca", 60));
            }
        }
    }

    @Test
    void keepsTheWorkingContextWhenTheNewFilesAreBroken() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            X509Certificate before = serverCertificate(pki, gateway.tlsPort());
            Files.writeString(pki.keyFile(), "-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n");
            assertTrue(!gateway.reloadTls(), "a broken key is not put in place");
            assertEquals(before, serverCertificate(pki, gateway.tlsPort()));
            assertNotEquals(0, gateway.metrics().registry().get("mqttgw.tls.reloads").tag("result", "failed")
                    .counter().count());
        }
    }
}
