package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS front door as a device sees it: a real JDK TLS client against the gateway's default (OpenSSL) engine, for
 * both certificate verifiers, and the alerts also against the JDK engine. A refused device reads the TLS alert it
 * was sent; the gateway counts the reason.
 */
class TlsFrontDoorIT {
    @TempDir
    Path dir;

    /**
     * Completes the client side of the handshake and reads: the server verifies the client certificate after the
     * client's Finished in TLS 1.3, so its alert arrives on that read. Returns the JDK's report of the alert.
     */
    static String alertReceived(SSLContext context, int port) throws IOException {
        IOException last = null;
        // the server may close while the client still writes its last handshake records (broken pipe): try again
        for (int attempt = 0; attempt < 5; attempt++) {
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
                socket.setSoTimeout(30_000);
                socket.startHandshake();
                int read = socket.getInputStream().read();
                return "no alert; read returned " + read;
            } catch (SSLException e) {
                return e.getMessage();
            } catch (java.net.SocketException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * OpenSSL sends the alert of the refusal. The JDK engine's server side (JDK 17) sends {@code certificate_unknown}
     * for every refused client certificate whatever the reason, so with it only the counted reason tells them apart.
     */
    static void assertAlert(String expected, String received, String engine) {
        if ("jdk".equals(engine)) {
            assertTrue(received.contains(expected) || received.contains("certificate_unknown"), received);
        } else {
            assertTrue(received.contains(expected), received);
        }
    }

    static void awaitCount(Gateway gateway, TlsFailureReason reason, double expected) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (gateway.metrics().tlsFailures(reason) < expected && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        // at least: a retried attempt (broken pipe) is refused and counted too
        assertTrue(gateway.metrics().tlsFailures(reason) >= expected, "failures counted as " + reason.label());
    }

    private Gateway start(TestPki pki, String verifier, String... keyValues) {
        TestGateway gateway = TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier);
        for (int i = 0; i < keyValues.length; i += 2) {
            gateway.with(keyValues[i], keyValues[i + 1]);
        }
        return gateway.start();
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesCertificateFromUnknownCaWithUnknownCaAlert(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.engine", engine)) {
            String alert = alertReceived(pki.clientContext(pki.untrustedDevice("dev-x")), gateway.tlsPort());
            assertAlert("unknown_ca", alert, engine);
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_UNKNOWN_CA, 1);
        }
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesExpiredCertificateWithCertificateExpiredAlert(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.engine", engine)) {
            String alert = alertReceived(pki.clientContext(pki.expiredDevice("dev-old")), gateway.tlsPort());
            assertAlert("certificate_expired", alert, engine);
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_EXPIRED, 1);
        }
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesRevokedCertificateWithCertificateRevokedAlert(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle stolen = pki.device("dev-stolen");
        Path crl = pki.writeCrl(dir.resolve("devices.crl"), stolen);
        try (Gateway gateway = start(pki, verifier, "listener.tls.crl-file", crl.toString(),
                "listener.tls.engine", engine)) {
            String alert = alertReceived(pki.clientContext(stolen), gateway.tlsPort());
            assertAlert("certificate_revoked", alert, engine);
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_REVOKED, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesCertificateWithACriticalExtensionTheVerifierDoesNotEvaluate(String verifier, String engine)
            throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle odd = pki.certificateBuilder().subject("CN=dev-odd").addExtendedKeyUsageClientAuth()
                .addExtensionUtf8String("1.3.6.1.4.1.99999.7", true, "must be understood")
                .notBefore(java.time.Instant.now().minusSeconds(3600))
                .notAfter(java.time.Instant.now().plusSeconds(86_400)).buildIssuedBy(pki.ca());
        try (Gateway gateway = start(pki, verifier, "listener.tls.engine", engine)) {
            String alert = alertReceived(pki.clientContext(odd), gateway.tlsPort());
            assertAlert("certificate_unknown", alert, engine);
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_REJECTED, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void refusesCertificateRevokedAfterItWasVerifiedOnce(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle device = pki.device("dev-later");
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.crl-file", crl.toString())) {
            CertificateRevocationIT.connects(pki.clientContext(device), gateway.tlsPort(), "dev-later");
            pki.writeCrl(crl, device);
            assertTrue(gateway.reloadTls());
            String alert = alertReceived(pki.clientContext(device), gateway.tlsPort());
            assertTrue(alert.contains("certificate_revoked"), alert);
        }
    }

    /**
     * Connects twice with one client context: the first connection leaves a session ticket in it (TLS 1.3 sends it
     * after the handshake; the CONNACK's round trip makes sure it arrived), the second resumes with it. With the
     * OpenSSL engine the gateway counts the resumption, which shows that this client's next attempt resumes too.
     */
    private static SSLContext holdingASession(TestPki pki, X509Bundle device, String clientId, Gateway gateway,
                                              String engine) throws IOException {
        SSLContext context = pki.clientContext(device);
        CertificateRevocationIT.connects(context, gateway.tlsPort(), clientId);
        double resumed = gateway.metrics().tlsHandshakes(true);
        CertificateRevocationIT.connects(context, gateway.tlsPort(), clientId);
        if (!"jdk".equals(engine)) {
            assertEquals(resumed + 1, gateway.metrics().tlsHandshakes(true), "the second connection resumed");
        }
        return context;
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void aDeviceRevokedAfterItsSessionBeganCannotResumeIt(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle stolen = pki.device("dev-stolen");
        Path crl = pki.writeCrl(dir.resolve("devices.crl"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.crl-file", crl.toString(),
                "listener.tls.engine", engine)) {
            SSLContext session = holdingASession(pki, stolen, "dev-stolen", gateway, engine);
            pki.writeCrl(crl, stolen);
            assertTrue(gateway.reloadTls(), "the changed CRL file makes a new context");
            double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_REVOKED);
            CertificateRevocationIT.refused(session, gateway.tlsPort(), "dev-stolen");
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_REVOKED, before + 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void aDeviceOfACaTakenOutOfTheCaFileCannotResumeItsSession(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.engine", engine)) {
            SSLContext session = holdingASession(pki, pki.device("dev-old-ca"), "dev-old-ca", gateway, engine);
            // the CA is replaced (a compromised CA, a migration): only the other CA's devices are trusted now
            Path next = java.nio.file.Files.writeString(dir.resolve("ca.pem.tmp"), pki.otherCa().getCertificatePEM());
            java.nio.file.Files.move(next, pki.caFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertTrue(gateway.reloadTls(), "the changed CA file makes a new context");
            double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_UNKNOWN_CA);
            CertificateRevocationIT.refused(session, gateway.tlsPort(), "dev-old-ca");
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_UNKNOWN_CA, before + 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.untrustedDevice("dev-new-ca")), gateway.tlsPort(),
                    "dev-new-ca");
        }
    }

    @Test
    void aDeviceWhoseCertificateExpiredAfterItsSessionBeganCannotResumeIt() throws Exception {
        // one brief certificate, and one wait for it to expire, for every verifier and engine pair
        String[][] pairs = {{"lean", "openssl"}, {"pkix", "openssl"}, {"lean", "jdk"}};
        TestPki pki = TestPki.create(dir.resolve("pki"));
        List<Gateway> gateways = new ArrayList<>();
        try {
            for (String[] pair : pairs) {
                gateways.add(start(pki, pair[0], "listener.tls.engine", pair[1],
                        "uplink.file.dir", dir.resolve("uplink-" + pair[0] + "-" + pair[1]).toString()));
            }
            // X.509 times are whole seconds: the certificate ends 7 to 8 s from now, time for two connections to each
            Instant end = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.SECONDS);
            X509Bundle brief = pki.certificateBuilder().subject("CN=dev-brief").addExtendedKeyUsageClientAuth()
                    .notBefore(Instant.now().minusSeconds(3600)).notAfter(end).buildIssuedBy(pki.ca());
            List<SSLContext> sessions = new ArrayList<>();
            for (int i = 0; i < pairs.length; i++) {
                sessions.add(holdingASession(pki, brief, "dev-brief", gateways.get(i), pairs[i][1]));
            }
            long wait = end.toEpochMilli() + 1_100 - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            for (int i = 0; i < pairs.length; i++) {
                Gateway gateway = gateways.get(i);
                try {
                    double before = gateway.metrics().tlsFailures(TlsFailureReason.CERTIFICATE_EXPIRED);
                    CertificateRevocationIT.refused(sessions.get(i), gateway.tlsPort(), "dev-brief");
                    awaitCount(gateway, TlsFailureReason.CERTIFICATE_EXPIRED, before + 1);
                } catch (AssertionError e) {
                    throw new AssertionError("verifier " + pairs[i][0] + ", engine " + pairs[i][1], e);
                }
            }
        } finally {
            for (Gateway gateway : gateways) {
                gateway.close();
            }
        }
    }

    @ParameterizedTest(name = "verifier {0}, RSA {1}")
    @CsvSource({"lean,false", "lean,true", "pkix,false", "pkix,true"})
    void refusesCertificateSignedWithSha1(String verifier, boolean rsa) throws Exception {
        TestPki pki = rsa ? TestPki.createRsa(dir.resolve("pki")) : TestPki.create(dir.resolve("pki"));
        X509Bundle sha1 = pki.sha1Device("dev-sha1");
        assertTrue(sha1.getCertificate().getSigAlgName().startsWith("SHA1"), sha1.getCertificate().getSigAlgName());
        try (Gateway gateway = start(pki, verifier)) {
            String alert = alertReceived(pki.clientContext(sha1), gateway.tlsPort());
            assertFalse(alert.startsWith("no alert"), alert);
            awaitCount(gateway, TlsFailureReason.CERTIFICATE_REJECTED, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void hardCrlModeRefusesDevicesOfAnIssuerWhoseCrlIsPastNextUpdate(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeStaleCrl(dir.resolve("devices.crl"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.crl-file", crl.toString(),
                "listener.tls.crl-mode", "hard")) {
            String alert = alertReceived(pki.clientContext(pki.device("dev-1")), gateway.tlsPort());
            assertFalse(alert.startsWith("no alert"), alert);
            awaitCount(gateway, TlsFailureReason.CRL_STALE, 1);
            String issuer = pki.ca().getCertificate().getSubjectX500Principal().getName();
            double nextUpdate = gateway.metrics().registry().get("mqttgw.tls.crl.next.update").tag("issuer", issuer)
                    .gauge().value();
            assertTrue(nextUpdate < -3600, "seconds to next update: " + nextUpdate);
            String health = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + gateway.adminPort() + "/health")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(health.contains("tls-crl") && health.contains("refused"), health);
        }
    }

    @ParameterizedTest(name = "verifier {0}")
    @ValueSource(strings = {"lean", "pkix"})
    void softCrlModeAdmitsDevicesOfAnIssuerWhoseCrlIsPastNextUpdate(String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path crl = pki.writeStaleCrl(dir.resolve("devices.crl"));
        try (Gateway gateway = start(pki, verifier, "listener.tls.crl-file", crl.toString())) {
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-1")), gateway.tlsPort(), "dev-1");
            String issuer = pki.ca().getCertificate().getSubjectX500Principal().getName();
            double age = gateway.metrics().registry().get("mqttgw.tls.crl.age").tag("issuer", issuer).gauge().value();
            assertTrue(age > 7 * 86_400, "CRL age in seconds: " + age);
        }
    }

    @ParameterizedTest(name = "send-ca-names {0}")
    @ValueSource(booleans = {true, false})
    void listsTrustedCaNamesInTheCertificateRequestOnlyWhenConfigured(boolean send) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = start(pki, "lean", "listener.tls.send-ca-names", Boolean.toString(send))) {
            List<Principal> seen = new CopyOnWriteArrayList<>();
            SSLContext context = pki.clientContext(pki.device("dev-1"), issuers -> seen.addAll(List.of(issuers)));
            CertificateRevocationIT.connects(context, gateway.tlsPort(), "dev-1");
            String ca = pki.ca().getCertificate().getSubjectX500Principal().getName();
            assertEquals(send, seen.stream().anyMatch(p -> p.getName().equals(ca)), "issuers the server named: "
                    + seen);
        }
    }
}
