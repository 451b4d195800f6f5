package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's answers to good and bad configurations. */
class GatewayMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return GatewayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private Path config(TestPki pki) throws Exception {
        return Files.writeString(dir.resolve("gateway.yaml"), "listener:\n  tls:\n    cert-file: "
                + pki.certFile() + "\n    key-file: " + pki.keyFile() + "\n    ca-file: " + pki.caFile() + "\n");
    }

    @Test
    void acceptsAConfigurationWhoseTlsFilesMakeAContext() throws Exception {
        assertEquals(0, run("check-config", "--config", config(TestPki.create(dir.resolve("pki"))).toString()));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("configuration OK"),
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void refusesAnExpiredServerCertificateNamingTheKeyAndTheFix() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Instant now = Instant.now();
        pki.writeServer("CN=localhost", now.minus(400, ChronoUnit.DAYS), now.minus(1, ChronoUnit.DAYS));
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("configuration error: listener.tls.cert-file=" + pki.certFile()), e);
        assertTrue(e.contains("expired on") && e.contains("renewed certificate"), e);
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("configuration OK"));
    }

    @Test
    void refusesAServerCertificateNotYetValid() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Instant now = Instant.now();
        pki.writeServer("CN=localhost", now.plus(2, ChronoUnit.DAYS), now.plus(400, ChronoUnit.DAYS));
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("configuration error: listener.tls.cert-file=") && e.contains("not valid before"), e);
    }

    @Test
    void acceptsButWarnsAboutAServerCertificateEndingWithin30Days() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Instant now = Instant.now();
        pki.writeServer("CN=localhost", now.minus(80, ChronoUnit.DAYS), now.plus(10, ChronoUnit.DAYS).plusSeconds(60));
        assertEquals(0, run("check-config", "--config", config(pki).toString()), err.toString(StandardCharsets.UTF_8));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("warning: listener.tls.cert-file=" + pki.certFile()) && e.contains("in 10 days"), e);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("configuration OK"));
    }

    @Test
    void checksTheOperationsListenersCertificateAsTheDeviceListenersOne() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        TestPki operations = TestPki.create(dir.resolve("operations"));
        Instant now = Instant.now();
        Path file = Files.writeString(dir.resolve("gateway.yaml"), Files.readString(config(pki))
                + "admin:\n  operations:\n    port: 0\n    tls:\n      cert-file: " + operations.certFile()
                + "\n      key-file: " + operations.keyFile() + "\n      ca-file: " + operations.caFile() + "\n");
        operations.writeServer("CN=localhost", now.minus(80, ChronoUnit.DAYS), now.plus(5, ChronoUnit.DAYS));
        assertEquals(0, run("check-config", "--config", file.toString()), err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("warning: admin.operations.tls.cert-file="),
                err.toString(StandardCharsets.UTF_8));

        operations.writeServer("CN=localhost", now.minus(80, ChronoUnit.DAYS), now.minus(5, ChronoUnit.DAYS));
        err.reset();
        assertEquals(2, run("check-config", "--config", file.toString()));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("configuration error: ") && e.contains("admin.operations.tls.cert-file="
                + operations.certFile() + ": the server certificate") && e.contains("expired on"), e);
    }

    @Test
    void saysNothingAboutAServerCertificateValidForLonger() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        assertEquals(0, run("check-config", "--config", config(pki).toString()), err.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void refusesAKeyFileThatIsNotAKey() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.writeString(pki.keyFile(), "not a key\n");
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.startsWith("configuration error: listener.tls.key-file=" + pki.keyFile()), message);
        assertTrue(message.contains("no private key"), message);
    }

    @Test
    void refusesAServerKeyThatDoesNotMatchTheServerCertificate() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.writeString(pki.keyFile(), pki.device("someone-else").getPrivateKeyPEM());
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.startsWith("configuration error: listener.tls.key-file=" + pki.keyFile()), message);
        assertTrue(message.contains("does not match the server certificate"), message);
    }

    @Test
    void refusesHardCrlModeWithoutACrlFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path config = Files.writeString(config(pki), Files.readString(config(pki)) + "    crl-mode: hard\n");
        assertEquals(2, run("check-config", "--config", config.toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("listener.tls.crl-mode = 'hard'") && message.contains("listener.tls.crl-file"),
                message);
    }

    @Test
    void namesTheKeyThePathAndTheReasonOfAnUnreadableFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.delete(pki.certFile());
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        assertEquals("configuration error: listener.tls.cert-file=" + pki.certFile() + ": cannot read: no such file",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void readsATraditionalSec1EcPrivateKey() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        rewriteKeyInTraditionalForm(pki, "-----BEGIN EC PRIVATE KEY-----");
        assertEquals(0, run("check-config", "--config", config(pki).toString()), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void readsATraditionalPkcs1RsaPrivateKey() throws Exception {
        TestPki pki = TestPki.createRsa(dir.resolve("pki"));
        rewriteKeyInTraditionalForm(pki, "-----BEGIN RSA PRIVATE KEY-----");
        assertEquals(0, run("check-config", "--config", config(pki).toString()), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Rewrites the PKCS#8 server key as SEC1 (curve named inside, as {@code openssl ec} writes it) or PKCS#1, the
     * forms openssl's older commands write.
     */
    private static void rewriteKeyInTraditionalForm(TestPki pki, String header) throws Exception {
        org.bouncycastle.asn1.pkcs.PrivateKeyInfo info;
        try (var parser = new org.bouncycastle.openssl.PEMParser(Files.newBufferedReader(pki.keyFile()))) {
            info = (org.bouncycastle.asn1.pkcs.PrivateKeyInfo) parser.readObject();
        }
        byte[] der;
        String type;
        if (header.contains("EC")) {
            var inner = org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(info.parsePrivateKey());
            der = new org.bouncycastle.asn1.sec.ECPrivateKey(256, inner.getKey(), inner.getPublicKey(),
                    info.getPrivateKeyAlgorithm().getParameters()).getEncoded();
            type = "EC PRIVATE KEY";
        } else {
            der = info.parsePrivateKey().toASN1Primitive().getEncoded();
            type = "RSA PRIVATE KEY";
        }
        java.io.StringWriter pem = new java.io.StringWriter();
        try (var writer = new org.bouncycastle.util.io.pem.PemWriter(pem)) {
            writer.writeObject(new org.bouncycastle.util.io.pem.PemObject(type, der));
        }
        assertTrue(pem.toString().startsWith(header), pem.toString());
        Files.writeString(pki.keyFile(), pem.toString());
    }

    @Test
    void refusesAMissingCertificateFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.delete(pki.certFile());
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(pki.certFile().toString()),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void namesAMissingConfigurationFile() {
        assertEquals(2, run("check-config", "--config", dir.resolve("nope.yaml").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("configuration file not found"));
    }

    @Test
    void explainsUsageForUnknownArguments() {
        assertEquals(1, run("run", "--verbose"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: gateway run --config FILE"));
    }
}
