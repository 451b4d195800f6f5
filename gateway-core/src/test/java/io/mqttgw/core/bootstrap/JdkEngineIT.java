package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code listener.tls.engine: jdk} over a run of handshakes, not just the first: accepted and refused devices in
 * turn, on both protocol versions and both verifiers, and a resumed session at the end. The OpenSSL engine's
 * post-handshake trimming must never reach the JDK engine (loading netty-tcnative's engine classes without the
 * native library fails once and for all).
 */
class JdkEngineIT {
    private static final int ROUNDS = 4;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "verifier {0}, {1}")
    @CsvSource({"lean,TLSv1.3", "lean,TLSv1.2", "pkix,TLSv1.3"})
    void keepsAcceptingAndRefusingDevicesOverManyHandshakes(String verifier, String protocol) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.engine", "jdk")
                .with("listener.tls.verifier", verifier).with("listener.tls.protocols", protocol).start()) {
            SSLContext stranger = pki.clientContext(pki.untrustedDevice("dev-stranger"));
            SSLContext first = pki.clientContext(pki.device("dev-jdk-0"));
            long firstSession = 0;
            for (int round = 0; round < ROUNDS; round++) {
                String device = "dev-jdk-" + round;
                try (RawMqttConnection raw = RawMqttConnection.tls(round == 0 ? first
                        : pki.clientContext(pki.device(device)), gateway.tlsPort(), protocol)) {
                    assertEquals(protocol, ((SSLSocket) raw.socket()).getSession().getProtocol());
                    assertEquals(0, raw.connect(device, 60), "round " + round + ": CONNACK accepted");
                    if (round == 0) {
                        firstSession = ((SSLSocket) raw.socket()).getSession().getCreationTime();
                    }
                }
                CertificateRevocationIT.refused(stranger, gateway.tlsPort(), "dev-stranger");
                TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.CERTIFICATE_UNKNOWN_CA, round + 1);
            }
            // the first device again after the run, resuming its session (the JDK client keeps it in its context):
            // a resumed session's certificate is verified again, on the JDK engine too
            try (RawMqttConnection raw = RawMqttConnection.tls(first, gateway.tlsPort(), protocol)) {
                assertEquals(0, raw.connect("dev-jdk-0", 60));
                assertEquals(firstSession, ((SSLSocket) raw.socket()).getSession().getCreationTime(),
                        "the client resumed its first session");
            }
            assertTrue(gateway.metrics().tlsFailures(TlsFailureReason.HANDSHAKE_FAILED) == 0,
                    "no accepted handshake was closed as a failure");
        }
    }
}
