package io.mqttgw.deploy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.TlsFiles;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevelopmentPkiTest {
    @TempDir
    Path dir;

    @Test
    void writesCaServerAndDeviceCertificatesThatChainToTheCa() throws Exception {
        DevelopmentPki.write(dir, 2, Instant.now());

        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(Set.of("ca.pem", "ca.key", "server.pem", "server.key", "device-1.pem", "device-1.key",
                            "device-2.pem", "device-2.key", "gateway.yaml"),
                    files.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
        }
        X509Certificate ca = certificate("ca.pem");
        X509Certificate server = certificate("server.pem");
        X509Certificate device = certificate("device-2.pem");
        ca.verify(ca.getPublicKey());
        server.verify(ca.getPublicKey());
        device.verify(ca.getPublicKey());
        assertTrue(ca.getBasicConstraints() >= 0, "CA certificate is a CA");
        assertEquals("device-2", new CertificateIdentities("cn").identityOf(device));
        assertEquals(List.of(List.of(2, "localhost"), List.of(7, "127.0.0.1")),
                List.copyOf(server.getSubjectAlternativeNames()));
        assertTrue(server.getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.1"), "serverAuth");
        assertTrue(device.getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.2"), "clientAuth");
        assertTrue(Files.readString(dir.resolve("device-2.key")).startsWith("-----BEGIN PRIVATE KEY-----"),
                "unencrypted PKCS#8");
    }

    @Test
    void theGatewayBuildsItsTlsContextFromTheFiles() throws Exception {
        DevelopmentPki.write(dir, 1, Instant.now());

        SslContextBuilder.forServer(dir.resolve("server.pem").toFile(), dir.resolve("server.key").toFile())
                .trustManager(dir.resolve("ca.pem").toFile()).sslProvider(SslProvider.JDK).build();
    }

    @Test
    void theGatewaysPemReaderReadsEveryFileItWrites() throws Exception {
        DevelopmentPki.write(dir, 1, Instant.now());

        TlsFiles.ServerCredentials server = TlsFiles.server(dir.resolve("server.pem"), dir.resolve("server.key"));
        X509Certificate ca = TlsFiles.certificates("listener.tls.ca-file", dir.resolve("ca.pem")).get(0);
        server.chain()[0].verify(ca.getPublicKey());
        X509Certificate device = TlsFiles.certificates("device", dir.resolve("device-1.pem")).get(0);
        assertEquals(device, certificate("device-1.pem"));
        assertEquals("EC", TlsFiles.privateKey("device", dir.resolve("device-1.key")).getAlgorithm());
        assertEquals("EC", TlsFiles.privateKey("ca", dir.resolve("ca.key")).getAlgorithm());
    }

    @Test
    void theWrittenGatewayYamlPassesTheGatewaysValidation() throws Exception {
        DevelopmentPki.write(dir, 1, Instant.now());

        GatewayConfig config = Gateway.configure(dir.resolve("gateway.yaml"), Providers.discover(), Map.of(),
                new Properties());
        assertEquals(dir.resolve("server.pem"), config.tls().certFile());
        assertEquals(dir.resolve("server.key"), config.tls().keyFile());
        assertEquals(dir.resolve("ca.pem"), config.tls().caFile());
        assertEquals(8883, config.tls().port());
        assertEquals(9090, config.admin().port());
    }

    @Test
    void aDirectoryWithCaPemIsLeftAlone() throws Exception {
        assertEquals(0, DevelopmentPki.run(new String[] {dir.toString(), "1"}, quiet(), quiet()));
        byte[] ca = Files.readAllBytes(dir.resolve("ca.pem"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertEquals(0, DevelopmentPki.run(new String[] {dir.toString(), "3"}, new PrintStream(out, true,
                StandardCharsets.UTF_8), quiet()));

        assertArrayEquals(ca, Files.readAllBytes(dir.resolve("ca.pem")));
        assertTrue(Files.notExists(dir.resolve("device-2.pem")));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("nothing written"));
    }

    @Test
    void refusesABadDeviceCountOrMissingDirectory() {
        assertEquals(1, DevelopmentPki.run(new String[] {dir.toString(), "0"}, quiet(), quiet()));
        assertEquals(1, DevelopmentPki.run(new String[] {dir.toString(), "many"}, quiet(), quiet()));
        assertEquals(1, DevelopmentPki.run(new String[0], quiet(), quiet()));
        assertTrue(Files.notExists(dir.resolve("ca.pem")));
    }

    private X509Certificate certificate(String file) throws Exception {
        try (InputStream in = Files.newInputStream(dir.resolve(file))) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
