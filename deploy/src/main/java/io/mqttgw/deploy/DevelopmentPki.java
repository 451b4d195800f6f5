package io.mqttgw.deploy;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code DevelopmentPki <dir> [deviceCount]}: writes a throw-away PKI and a {@code gateway.yaml} that uses it, so the
 * gateway can be tried on one machine without an openssl recipe. Devices connect only over mutual TLS, so even a
 * first "hello" needs a CA, a server certificate and a device certificate whose CN is the MQTT client id.
 *
 * <p>Written: {@code ca.pem}/{@code ca.key} (the CA), {@code server.pem}/{@code server.key} (CN and SAN
 * {@code localhost}, SAN IP {@code 127.0.0.1}), {@code device-N.pem}/{@code device-N.key} (CN {@code device-N}),
 * all ECDSA P-256, valid one year, keys unencrypted PKCS#8 PEM (what the gateway and mosquitto read). Not for
 * production: the CA key lies next to the certificates.
 *
 * <p>Idempotent: a directory that already holds {@code ca.pem} is left untouched, so running the demo again keeps
 * the certificates devices were given. {@code ca.pem} is written last, so an interrupted run is simply redone.
 */
public final class DevelopmentPki {
    static final int DEFAULT_DEVICES = 3;
    static final int MAX_DEVICES = 10_000;
    private static final Duration VALIDITY = Duration.ofDays(365);
    /** Tolerates a device clock that is a little behind. */
    private static final Duration BACKDATE = Duration.ofHours(1);

    private final Path dir;
    private final Instant notBefore;
    private final Instant notAfter;
    private final List<String> written = new ArrayList<>();

    private DevelopmentPki(Path dir, Instant now) {
        this.dir = dir;
        this.notBefore = now.minus(BACKDATE);
        this.notAfter = now.plus(VALIDITY);
    }

    @io.mqttgw.core.SuppressForbidden(reason = "the command line's own output and errors")
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 1 || args.length > 2) {
            err.println("usage: DevelopmentPki DIR [DEVICE_COUNT]   (default " + DEFAULT_DEVICES + " devices)");
            return 1;
        }
        int devices = DEFAULT_DEVICES;
        if (args.length == 2) {
            try {
                devices = Integer.parseInt(args[1]);
            } catch (NumberFormatException e) {
                devices = -1;
            }
            if (devices < 1 || devices > MAX_DEVICES) {
                err.println("device count '" + args[1] + "' is not a whole number from 1 to " + MAX_DEVICES);
                return 1;
            }
        }
        Path dir = Path.of(args[0]).toAbsolutePath().normalize();
        if (Files.exists(dir.resolve("ca.pem"))) {
            out.println("development PKI already present in " + dir + " (ca.pem exists); nothing written");
            return 0;
        }
        try {
            List<String> files = write(dir, devices, Instant.now());
            out.println("development PKI written to " + dir + ":");
            files.forEach(f -> out.println("  " + f));
            return 0;
        } catch (Exception e) {
            err.println("cannot write the development PKI to " + dir + ": " + e);
            return 1;
        }
    }

    /** Writes every file into {@code dir} (created if missing); returns a line per file written, in order. */
    static List<String> write(Path dir, int devices, Instant now) throws Exception {
        Files.createDirectories(dir);
        return new DevelopmentPki(dir, now).writeAll(devices);
    }

    private List<String> writeAll(int devices) throws Exception {
        X509Bundle ca = new CertificateBuilder().ecp256()
                .subject("CN=mqtt-gateway development CA")
                .setIsCertificateAuthority(true)
                .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign)
                .notBefore(notBefore).notAfter(notAfter)
                .buildSelfSigned();
        writeKey("ca.key", ca, "CA private key: signs device certificates; keep it off devices");

        X509Bundle server = leaf("CN=localhost")
                .addSanDnsName("localhost").addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .buildIssuedBy(ca);
        writeCertificate("server.pem", server, "server certificate (localhost, 127.0.0.1)");
        writeKey("server.key", server, "server private key");

        for (int i = 1; i <= devices; i++) {
            String name = "device-" + i;
            X509Bundle device = leaf("CN=" + name).addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
            writeCertificate(name + ".pem", device, "device certificate; MQTT client id " + name);
            writeKey(name + ".key", device, "device private key");
        }

        writeText("gateway.yaml", gatewayYaml(), "gateway configuration using these files");
        writeCertificate("ca.pem", ca, "CA certificate: the devices' and the gateway's trust anchor");
        return List.copyOf(written);
    }

    private CertificateBuilder leaf(String subject) {
        return new CertificateBuilder().ecp256().subject(subject)
                .setKeyUsage(true, KeyUsage.digitalSignature)
                .notBefore(notBefore).notAfter(notAfter);
    }

    private void writeCertificate(String file, X509Bundle bundle, String what) throws IOException {
        writeText(file, bundle.getCertificatePEM(), what);
    }

    private void writeKey(String file, X509Bundle bundle, String what) throws IOException {
        Path path = dir.resolve(file);
        Files.deleteIfExists(path);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        writeText(file, bundle.getPrivateKeyPEM(), what);
    }

    private void writeText(String file, String text, String what) throws IOException {
        Files.writeString(dir.resolve(file), text, StandardCharsets.US_ASCII);
        written.add(String.format(Locale.ROOT, "%-14s %s", file, what));
    }

    private static String gatewayYaml() {
        return """
                # Development configuration written by DevelopmentPki next to the certificates it uses.
                # Relative paths resolve against this file's directory. Every other key keeps its default;
                # see config/gateway.yaml in the distribution for all of them.
                listener:
                  tls:
                    # loopback only: the server certificate names only localhost and 127.0.0.1
                    bind: 127.0.0.1
                    port: 8883
                    cert-file: server.pem
                    key-file: server.key
                    ca-file: ca.pem
                uplink:
                  file:
                    # uplink.jsonl in this directory gets one JSON line per device PUBLISH
                    dir: uplink
                admin:
                  bind: 127.0.0.1
                  port: 9090
                """;
    }
}
