package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that warms its TLS path up before it listens: the warm-up's in-memory handshakes leave no trace in what the
 * node counts or holds, and the first device after it is served as usual.
 */
class TlsWarmUpIT {
    @TempDir
    Path dir;

    @Test
    void warmsUpWithoutCountingItsOwnHandshakesAndThenServesDevices() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.warm-up-handshakes", "40").start()) {
            assertEquals(0, gateway.metrics().channelsOpen());
            assertEquals(0.0, gateway.metrics().tlsHandshakes(false) + gateway.metrics().tlsHandshakes(true),
                    "the warm-up's handshakes are not the node's");
            try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-first")),
                    gateway.tlsPort())) {
                assertEquals(0, raw.connect("dev-first", 60));
            }
            assertEquals(1.0, gateway.metrics().tlsHandshakes(false));
        }
    }
}
