package io.mqttgw.auth.x509;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FingerprintPinsTest {
    @TempDir
    Path dir;

    @Test
    void fingerprintIsTheSha256OfTheDerEncodingInLowerHex() throws Exception {
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        assertEquals(expected, Fingerprints.sha256(cert));
        assertNull(Fingerprints.sha256(null));
    }

    @Test
    void readsPinsWrittenWithColonsInAnyCaseAndSkipsComments() throws Exception {
        String fp = "AB:".repeat(31) + "AB";
        Path file = Files.writeString(dir.resolve("pins"), "# device pins\n\ndev-1   " + fp + "\ndev-2 "
                + "0f".repeat(32) + "\n");
        FingerprintPins pins = FingerprintPins.read(file);
        assertEquals("ab".repeat(32), pins.pinOf("dev-1"));
        assertEquals("0f".repeat(32), pins.pinOf("dev-2"));
        assertNull(pins.pinOf("dev-3"));
        assertEquals(2, pins.size());
    }

    @Test
    void namesTheLineOfABadPin() throws Exception {
        Path file = Files.writeString(dir.resolve("pins"), "dev-1 " + "ab".repeat(32) + "\ndev-2 abc\n");
        String message = assertThrows(IllegalArgumentException.class, () -> FingerprintPins.read(file)).getMessage();
        assertTrue(message.contains("line 2") && message.contains("SHA-256"), message);
        Path twice = Files.writeString(dir.resolve("twice"), "dev-1 " + "ab".repeat(32) + "\ndev-1 " + "cd".repeat(32));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FingerprintPins.read(twice)).getMessage()
                .contains("pinned twice"));
    }
}
