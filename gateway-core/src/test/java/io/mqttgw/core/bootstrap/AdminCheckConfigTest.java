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

/** check-config reads the operator token file as startup would, so a bad one is found before a restart. */
class AdminCheckConfigTest {
    @TempDir
    Path dir;

    @Test
    void refusesAnEmptyOperatorTokenFileNamingTheKey() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        Path tokens = Files.writeString(dir.resolve("admin-tokens"), "\n# none yet\n");
        Path config = Files.writeString(dir.resolve("gateway.yaml"), "node:\n  id: test\n"
                + "listener:\n  tls:\n    cert-file: " + pki.certFile() + "\n    key-file: " + pki.keyFile()
                + "\n    ca-file: " + pki.caFile() + "\nadmin:\n  operations:\n    token-file: " + tokens + "\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = GatewayMain.run(new String[] {"check-config", "--config", config.toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.startsWith("configuration error: admin.operations.token-file = '" + tokens + "'"),
                message);
    }
}
