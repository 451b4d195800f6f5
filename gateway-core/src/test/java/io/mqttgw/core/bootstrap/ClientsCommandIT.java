package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gateway clients list|show|kick} as an operator types them, against a gateway started in this JVM on
 * ephemeral 127.0.0.1 ports with real devices over mutual TLS; exit statuses as the README documents them.
 */
class ClientsCommandIT {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int gateway(String... args) {
        out.reset();
        err.reset();
        return GatewayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpAndVersionForEveryVerbAndUsageErrorsExitWithOne() {
        assertEquals(0, gateway("clients", "--help"));
        assertTrue(out().contains("list") && out().contains("show") && out().contains("kick"), out());
        for (String verb : new String[] {"list", "show", "kick"}) {
            assertEquals(0, gateway("clients", verb, "--help"), err());
            assertTrue(out().contains("--admin-url") && out().contains("--token-file"), out());
            assertEquals(0, gateway("clients", verb, "--version"));
            assertTrue(out().startsWith("mqtt-gateway "), out());
        }
        assertEquals(1, gateway("clients"), "no verb");
        assertEquals(1, gateway("clients", "list", "--no-such-option"));
        assertTrue(err().contains("--no-such-option"), err());
        assertEquals(1, gateway("clients", "show"), "no client id");
        assertEquals(1, gateway("clients", "list", "--admin-url", "http://127.0.0.1:1"), "no token given");
        assertTrue(err().contains("--token-file"), err());
    }

    @Test
    void listsShowsAndKicksAgainstARunningGateway() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            Mqtt3AsyncClient one = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-1").buildAsync();
            one.connect().join();
            Mqtt3AsyncClient two = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-2").buildAsync();
            two.connect().join();
            String url = "http://127.0.0.1:" + gateway.adminPort();
            // the CLI takes the server's id:token file as it is, or a file with the token alone
            String tokens = dir.resolve("admin-tokens").toString();
            Path bare = Files.writeString(dir.resolve("token"), "# mine\n" + TestGateway.OPERATOR_TOKEN + "\n");
            Path wrong = Files.writeString(dir.resolve("wrong"), "someone:not-the-token-0123456789abcdef0123456789\n");

            assertEquals(4, gateway("clients", "list", "--admin-url", url, "--token-file", wrong.toString()));
            assertTrue(err().contains("401"), err());

            assertEquals(0, gateway("clients", "list", "--admin-url", url, "--token-file", tokens, "--limit", "1",
                    "--all"), err());
            String[] lines = out().strip().split("\n");
            assertEquals(2, lines.length, out());
            assertTrue(lines[0].startsWith("dev-1\t") && lines[1].startsWith("dev-2\t"), out());
            assertEquals(0, gateway("clients", "list", "--admin-url", url, "--token-file", tokens, "--limit", "1"));
            assertTrue(out().contains("# more"), out());

            assertEquals(0, gateway("clients", "show", "dev-2", "--admin-url", url, "--token-file",
                    bare.toString()), err());
            assertTrue(out().contains("\"clientId\":\"dev-2\"") && out().contains("\"local\":true"), out());

            assertEquals(0, gateway("clients", "kick", "dev-2", "--admin-url", url, "--token-file", tokens), err());
            assertEquals("kicked dev-2\n", out());
            long deadline = System.currentTimeMillis() + 15_000;
            // the close is counted when the gateway's side goes inactive, which may come after the device saw it
            while ((two.getState() == MqttClientState.CONNECTED
                    || gateway.metrics().disconnects(DisconnectReason.ADMINISTRATIVE) < 1)
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(two.getState() != MqttClientState.CONNECTED, "the kicked device is disconnected");
            assertEquals(1, gateway.metrics().disconnects(DisconnectReason.ADMINISTRATIVE));
            assertEquals(4, gateway("clients", "show", "dev-2", "--admin-url", url, "--token-file", tokens));
            assertTrue(err().contains("404 client not connected"), err());
            assertEquals(4, gateway("clients", "kick", "dev/2", "--admin-url", url, "--token-file", tokens));
            assertTrue(err().contains("400"), err());
            assertEquals(MqttClientState.CONNECTED, one.getState());
            one.disconnect().join();
        }
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Path tokens = dir.resolve("admin-tokens");
        assertEquals(5, gateway("clients", "list", "--admin-url", "http://127.0.0.1:" + closedPort, "--token-file",
                tokens.toString(), "--timeout", "5"));
        assertTrue(err().contains("cannot reach"), err());
    }

    @Test
    void presentsTheOperatorCertificateThatAnOperationsListenerWithMutualTlsRequires() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        TestPki operators = TestPki.create(dir.resolve("operator-pki"));
        Path cert = operators.writeDevice("operator-1", operators.device("operator-1"));
        Path key = cert.resolveSibling("operator-1.key");
        // a certificate with the operator's name from a CA the listener does not trust
        Path stranger = operators.writeDevice("stranger", operators.untrustedDevice("operator-1"));
        Path strangerKey = stranger.resolveSibling("stranger.key");
        Path ca = operators.caFile();
        try (Gateway gateway = TestGateway.tls(pki, dir).with("admin.operations.port", "0")
                .with("admin.operations.tls.cert-file", operators.certFile().toString())
                .with("admin.operations.tls.key-file", operators.keyFile().toString())
                .with("admin.operations.tls.ca-file", ca.toString()).start()) {
            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-1").buildAsync();
            device.connect().join();
            String url = "https://127.0.0.1:" + gateway.adminOperationsPort();

            assertEquals(1, gateway("clients", "list", "--admin-url", url, "--ca-file", ca.toString()));
            assertTrue(err().contains("--cert"), "no credential at all: " + err());
            // a token alone does not open a listener that requires a client certificate
            Path token = Files.writeString(dir.resolve("token"), TestGateway.OPERATOR_TOKEN + "\n");
            assertEquals(5, gateway("clients", "list", "--admin-url", url, "--ca-file", ca.toString(),
                    "--token-file", token.toString(), "--timeout", "10"));
            assertTrue(err().contains("needs --cert and --key"), err());
            assertEquals(5, gateway("clients", "list", "--admin-url", url, "--ca-file", ca.toString(),
                    "--cert", stranger.toString(), "--key", strangerKey.toString(), "--timeout", "10"));
            assertTrue(err().contains("admin.operations.tls.ca-file"), err());
            assertEquals("", out());
            assertEquals(1, gateway("clients", "list", "--admin-url", url, "--cert", cert.toString()));
            assertTrue(err().contains("--cert and --key go together"), err());
            assertEquals(1, gateway("clients", "list", "--admin-url", url.replace("https", "http"), "--cert",
                    cert.toString(), "--key", key.toString()));
            assertTrue(err().contains("https://"), err());

            assertEquals(0, gateway("clients", "list", "--admin-url", url, "--ca-file", ca.toString(),
                    "--cert", cert.toString(), "--key", key.toString()), err());
            assertTrue(out().startsWith("dev-1\t"), out());

            // the same from a config file, its paths relative to the file
            Path config = Files.writeString(operators.caFile().resolveSibling("cli.properties"),
                    "# operator-1 on this node\nadmin-url = " + url + "\ncert = operator-1.pem\nkey = operator-1.key\n"
                            + "ca-file = " + ca.getFileName() + "\ntimeout = 10\n");
            assertEquals(0, gateway("clients", "show", "dev-1", "--cli-config", config.toString()), err());
            assertTrue(out().contains("\"clientId\":\"dev-1\""), out());
            assertEquals(5, gateway("clients", "show", "dev-1", "--cli-config", config.toString(),
                    "--cert", stranger.toString(), "--key", strangerKey.toString()), "the command line wins");
            Path typo = Files.writeString(dir.resolve("typo.properties"), "admin-ur1 = " + url + "\n");
            assertEquals(1, gateway("clients", "list", "--cli-config", typo.toString()));
            assertTrue(err().contains("unknown key admin-ur1"), err());
            device.disconnect().join();
        }
    }
}
