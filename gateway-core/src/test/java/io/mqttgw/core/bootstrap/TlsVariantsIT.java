package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS 1.2 and 1.3, ECDSA and RSA keys, and a listener restricted to one protocol version. */
class TlsVariantsIT {
    @TempDir
    Path dir;

    @Test
    void acceptsTls12AndTls13Devices() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
                try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-v")),
                        gateway.tlsPort(), protocol)) {
                    assertEquals(0, raw.connect("dev-v", 60));
                    assertEquals(protocol, ((SSLSocket) raw.socket()).getSession().getProtocol());
                }
            }
        }
    }

    @Test
    void servesRsaServerKeyAndRsaDeviceCertificates() throws Exception {
        TestPki pki = TestPki.createRsa(dir.resolve("rsa"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-rsa")),
                    gateway.tlsPort())) {
                assertEquals(0, raw.connect("dev-rsa", 60));
                assertEquals("RSA", ((SSLSocket) raw.socket()).getSession().getPeerCertificates()[0].getPublicKey()
                        .getAlgorithm());
            }
        }
    }

    @Test
    void refusesTls12WhenTheListenerOffersOnlyTls13() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.protocols", "TLSv1.3").start()) {
            assertThrows(IOException.class, () -> RawMqttConnection.tls(pki.clientContext(pki.device("dev-old")),
                    gateway.tlsPort(), "TLSv1.2").close());
        }
    }

    @Test
    void readsTheIdentityFromTheSanUriWhenConfigured() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("identity.source", "san-uri")
                .with("identity.client-id-policy", "use-identity").start()) {
            try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.deviceWithSans("cn-name",
                    "urn:device:sensor-42", "sensor-42.fleet.example")), gateway.tlsPort())) {
                assertEquals(0, raw.connect("whatever-the-device-says", 60));
                long deadline = System.currentTimeMillis() + 5000;
                while (gateway.registry().find("urn:device:sensor-42") == null
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(true, gateway.registry().find("urn:device:sensor-42") != null,
                        "the session is registered under the SAN URI identity");
            }
        }
    }
}
