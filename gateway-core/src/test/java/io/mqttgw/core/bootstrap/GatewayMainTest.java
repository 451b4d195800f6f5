package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("configuration OK"), out.toString());
    }

    @Test
    void refusesAKeyFileThatIsNotAKey() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.writeString(pki.keyFile(), "not a key\n");
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.startsWith("configuration error: cannot build the TLS context"), message);
        assertTrue(message.contains("listener.tls.key-file=" + pki.keyFile()), message);
    }

    @Test
    void refusesAMissingCertificateFile() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Files.delete(pki.certFile());
        assertEquals(2, run("check-config", "--config", config(pki).toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(pki.certFile().toString()), err.toString());
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
