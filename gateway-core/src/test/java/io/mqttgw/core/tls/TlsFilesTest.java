package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestPki;
import io.netty.pkitesting.X509Bundle;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsFilesTest {
    @TempDir
    Path dir;

    @Test
    void readsTheServerChainAndItsKeyFromTheFilesTheTestPkiWrites() {
        TestPki pki = TestPki.create(dir);
        TlsFiles.ServerCredentials server = TlsFiles.server(pki.certFile(), pki.keyFile());
        assertTrue(server.chain().length >= 1);
        assertEquals("EC", server.key().getAlgorithm());
        assertEquals(pki.ca().getCertificate(), TlsFiles.certificates("listener.tls.ca-file", pki.caFile()).get(0));
    }

    @Test
    void readsCertificateAndKeyFromOneFileSkippingBlocksThatAreNeither() throws Exception {
        TestPki pki = TestPki.create(dir);
        X509Bundle device = pki.device("dev-1");
        Path both = Files.writeString(dir.resolve("both.pem"), "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n"
                + "-----END EC PARAMETERS-----\n" + device.getCertificatePEM() + device.getPrivateKeyPEM());
        TlsFiles.PemContents pem = TlsFiles.pem("device", both);
        assertEquals(3, pem.pemBlocks());
        assertArrayEquals(device.getCertificate().getEncoded(), pem.certificates().get(0).getEncoded());
        assertArrayEquals(device.getKeyPair().getPrivate().getEncoded(), pem.privateKey().getEncoded());
        assertEquals(List.of(device.getCertificate()), TlsFiles.certificates("device", both));
        assertEquals(device.getKeyPair().getPrivate(), TlsFiles.privateKey("device", both));
    }

    @Test
    void readsDerCertificatesAndCrlsAsWell() throws Exception {
        TestPki pki = TestPki.create(dir);
        X509Certificate ca = pki.ca().getCertificate();
        Path der = Files.write(dir.resolve("ca.der"), ca.getEncoded());
        assertEquals(List.of(ca), TlsFiles.certificates("listener.tls.ca-file", der));
        byte[] crl = TlsFiles.crls("crl", pki.writeCrl(dir.resolve("c.crl"))).get(0).getEncoded();
        assertEquals(1, TlsFiles.crls("crl", Files.write(dir.resolve("c.der"), crl)).size());
    }

    @Test
    void refusesAnEncryptedKeyNamingTheFileAndTheFix() throws Exception {
        TestPki pki = TestPki.create(dir);
        StringWriter pem = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
            writer.writeObject(new JcaPKCS8Generator(pki.device("dev-1").getKeyPair().getPrivate(),
                    new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                            .setProvider(new BouncyCastleProvider()).setPassword("secret".toCharArray()).build()));
        }
        Path file = Files.writeString(dir.resolve("enc.key"), pem.toString());
        assertTrue(pem.toString().startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----"), pem.toString());
        String message = assertThrows(IllegalStateException.class,
                () -> TlsFiles.privateKey("listener.tls.key-file", file)).getMessage();
        assertTrue(message.startsWith("listener.tls.key-file=" + file + ": the private key is encrypted"), message);
        assertTrue(message.contains("openssl pkey"), message);
    }

    @Test
    void namesTheKeyAndTheFileOfBrokenOrEmptyFiles() throws Exception {
        Path broken = Files.writeString(dir.resolve("broken.key"),
                "-----BEGIN PRIVATE KEY-----\nbroken!\n-----END PRIVATE KEY-----\n");
        String message = assertThrows(IllegalStateException.class,
                () -> TlsFiles.privateKey("listener.tls.key-file", broken)).getMessage();
        assertTrue(message.startsWith("listener.tls.key-file=" + broken + ": not a readable PEM file"), message);
        Path text = Files.writeString(dir.resolve("text.pem"), "hello\n");
        message = assertThrows(IllegalStateException.class,
                () -> TlsFiles.certificates("listener.tls.ca-file", text)).getMessage();
        assertTrue(message.startsWith("listener.tls.ca-file=" + text + ": "), message);
        TlsFiles.PemContents none = TlsFiles.pem("x", Files.writeString(dir.resolve("empty.pem"), ""));
        assertEquals(0, none.pemBlocks());
        assertNull(none.privateKey());
        message = assertThrows(IllegalStateException.class,
                () -> TlsFiles.pem("listener.tls.cert-file", dir.resolve("missing.pem"))).getMessage();
        assertEquals("listener.tls.cert-file=" + dir.resolve("missing.pem") + ": cannot read: no such file", message);
    }
}
