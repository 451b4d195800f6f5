package io.mqttgw.bench.sim.pki;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.core.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchPkiTest {
    @TempDir
    Path dir;

    @Test
    void readsBackTheCaAndDeviceFilesItWrote() throws Exception {
        for (KeyAlgorithm algorithm : KeyAlgorithm.values()) {
            Path pkiDir = dir.resolve(algorithm.name());
            DeviceCredential issued = BenchPki.open(pkiDir, algorithm).device("dev-1");
            BenchPki reopened = BenchPki.open(pkiDir, algorithm);
            DeviceCredential read = reopened.device("dev-1");
            assertArrayEquals(issued.certificateDer(), read.certificateDer(), "the cached device file is reused");
            assertArrayEquals(issued.keyDer(), read.keyDer());
            X509Certificate device = read.certificate();
            assertEquals("CN=dev-1", device.getSubjectX500Principal().getName());
            assertTrue(signs(read.privateKey(), device.getPublicKey()), "the key belongs to the certificate");
            X509Certificate ca = TlsFiles.certificates("ca", reopened.caFile()).get(0);
            device.verify(ca.getPublicKey());
            reopened.device("dev-2").certificate().verify(ca.getPublicKey());
        }
    }

    @Test
    void namesTheFileWhenTheCaKeyIsBroken() throws Exception {
        BenchPki.open(dir, KeyAlgorithm.EC);
        Files.writeString(dir.resolve("ca.key"), "-----BEGIN PRIVATE KEY-----\nbroken!\n-----END PRIVATE KEY-----\n");
        String message = assertThrows(IllegalStateException.class,
                () -> BenchPki.open(dir, KeyAlgorithm.EC)).getMessage();
        assertTrue(message.startsWith("--pki-dir=" + dir.resolve("ca.key") + ": "), message);
    }

    private static boolean signs(PrivateKey key, PublicKey certified) throws Exception {
        String algorithm = "EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256withRSA";
        Signature sign = Signature.getInstance(algorithm);
        sign.initSign(key);
        sign.update(new byte[] {1, 2, 3});
        byte[] signature = sign.sign();
        Signature verify = Signature.getInstance(algorithm);
        verify.initVerify(certified);
        verify.update(new byte[] {1, 2, 3});
        return verify.verify(signature);
    }
}
