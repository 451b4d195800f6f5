package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README's security section says a TLS 1.2 device may still sign its handshake with, held against BoringSSL
 * as the gateway configures it: the CertificateRequest offers rsa_pkcs1_sha1 (no ECDSA with SHA-1), so an RSA device
 * can prove its key with a SHA-1 signature; {@code listener.tls.protocols: TLSv1.3} closes that (TLS 1.3 has no SHA-1
 * signature scheme for a handshake). OpenSSL's {@code s_client} plays the device; its {@code -trace} shows the
 * messages.
 */
class Tls12SignatureAlgorithmsIT {
    @TempDir
    Path dir;

    @Test
    void rsaDeviceMaySignTheTls12HandshakeWithSha1UnlessTheListenerIsTls13Only() throws Exception {
        assumeTrue(opensslAvailable(), "openssl is on the PATH");
        TestPki pki = TestPki.createRsa(dir.resolve("pki"));
        X509Bundle device = pki.device("dev-rsa");
        Path cert = pki.writeDevice("dev-rsa", device);
        Path key = dir.resolve("pki").resolve("dev-rsa.key");
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            String trace = deviceHandshake(gateway.tlsPort(), pki, cert, key);
            String request = trace.substring(trace.indexOf("CertificateRequest"), trace.indexOf("ServerHelloDone"));
            assertTrue(request.contains("rsa_pkcs1_sha1"), "the CertificateRequest offers SHA-1 with RSA: " + request);
            assertFalse(request.contains("ecdsa_sha1"), "but not with ECDSA: " + request);
            String verify = trace.substring(trace.indexOf("CertificateVerify"));
            assertTrue(verify.startsWith("CertificateVerify") && verify.contains("rsa_pkcs1_sha1"),
                    "the device signed with SHA-1: " + verify.substring(0, Math.min(400, verify.length())));
            assertTrue(trace.lastIndexOf("Finished") > trace.indexOf("CertificateVerify")
                    && trace.contains("Verification: OK") && !trace.contains("alert"),
                    "and the gateway completed the handshake: " + trace);
        }
        try (Gateway gateway = TestGateway.tls(pki, dir.resolve("tls13")).with("listener.tls.protocols", "TLSv1.3")
                .start()) {
            String trace = deviceHandshake(gateway.tlsPort(), pki, cert, key);
            assertFalse(trace.contains("CertificateVerify"), "no TLS 1.2 handshake: " + trace);
            assertTrue(trace.contains("protocol version") || trace.contains("protocol_version")
                    || trace.contains("alert"), "refused with an alert: " + trace);
        }
    }

    /** A TLS 1.2 handshake by s_client with the device's RSA key, signing with SHA-1 only; returns its trace. */
    private static String deviceHandshake(int port, TestPki pki, Path cert, Path key) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl", "s_client", "-tls1_2", "-connect",
                "127.0.0.1:" + port, "-CAfile", pki.caFile().toString(), "-cert", cert.toString(), "-key",
                key.toString(), "-client_sigalgs", "RSA+SHA1", "-cipher", "DEFAULT@SECLEVEL=0", "-trace"));
        Process client = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(new File("/dev/null"))
                .start();
        String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(client.waitFor(60, TimeUnit.SECONDS), "s_client ended");
        return out;
    }

    private static boolean opensslAvailable() {
        try {
            return new ProcessBuilder("openssl", "version").start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
