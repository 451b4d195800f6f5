package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mqttgw.core.testkit.EventLogCapture;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A device that refuses the server (here: it does not trust the CA of the server certificate) is logged and counted
 * by the alert it sent, on TLS 1.3 as on TLS 1.2. Real clients: OpenSSL's {@code s_client}, and the JDK's.
 */
class DeviceAlertIT {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-tls1_3", "-tls1_2"})
    void logsAnOpensslDeviceDistrustingTheServerByItsAlert(String protocol) throws Exception {
        assumeTrue(opensslAvailable(), "openssl is on the PATH");
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle device = pki.device("dev-distrust");
        Path cert = pki.writeDevice("dev-distrust", device);
        Path key = dir.resolve("pki").resolve("dev-distrust.key");
        Path wrongCa = Files.writeString(dir.resolve("wrong-ca.pem"), pki.otherCa().getCertificatePEM());
        try (EventLogCapture log = new EventLogCapture(); Gateway gateway = TestGateway.tls(pki, dir).start()) {
            Process client = new ProcessBuilder("openssl", "s_client", protocol, "-connect",
                    "127.0.0.1:" + gateway.tlsPort(), "-CAfile", wrongCa.toString(), "-cert", cert.toString(),
                    "-key", key.toString(), "-verify_return_error").redirectErrorStream(true).start();
            client.getOutputStream().close();
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "s_client ended");
            String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(out.contains("certificate verify failed"), "the client refused the server: " + out);
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.DEVICE_ALERT, 1);
            assertLogged(log.lines(), "reason=device_alert detail=\"device sent alert unknown_ca");
        }
    }

    /** The JDK client's TLS 1.2 alert (its TLS 1.3 one is encrypted, and stays the engine's report). */
    @Test
    void logsAJdkDeviceDistrustingTheServerByItsAlert() throws Exception {
        String protocol = "TLSv1.2";
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (EventLogCapture log = new EventLogCapture(); Gateway gateway = TestGateway.tls(pki, dir).start()) {
            SSLContext distrusting = SSLContext.getInstance("TLS");
            distrusting.init(TestPki.keys(pki.device("dev-distrust")).getKeyManagers(),
                    pki.otherCa().toTrustManagerFactory().getTrustManagers(), null);
            try (SSLSocket socket = (SSLSocket) distrusting.getSocketFactory().createSocket("127.0.0.1",
                    gateway.tlsPort())) {
                socket.setEnabledProtocols(new String[] {protocol});
                socket.startHandshake();
                throw new AssertionError("the client trusted a server of a CA it does not know");
            } catch (SSLException expected) {
                // the JDK sends certificate_unknown for a server certificate it cannot path-build
            }
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.DEVICE_ALERT, 1);
            assertLogged(log.lines(), "reason=device_alert detail=\"device sent alert certificate_unknown");
        }
    }

    private static void assertLogged(List<String> lines, String expected) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (lines.stream().noneMatch(l -> l.contains(expected)) && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(lines.stream().anyMatch(l -> l.contains(expected)), "logged " + expected + ": " + lines);
    }

    private static boolean opensslAvailable() {
        try {
            return new ProcessBuilder("openssl", "version").start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
