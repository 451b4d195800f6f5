package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.testkit.AdminCalls.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The route table check as an operator calls it ({@code POST /routes/verify}, {@code gateway routes verify}) on a node
 * with the embedded route store: only an authenticated operator may run it, and it reports (and repairs) a route the
 * table lost for a connected device.
 */
class RoutesVerifyIT {
    @TempDir
    Path dir;


    private int cli(Gateway gateway, ByteArrayOutputStream out, ByteArrayOutputStream err, String... extra) {
        String[] args = new String[5 + extra.length];
        args[0] = "routes";
        args[1] = "verify";
        args[2] = "--admin-url=http://127.0.0.1:" + gateway.adminPort();
        args[3] = "--token-file";
        args[4] = dir.resolve("admin-tokens").toString();
        System.arraycopy(extra, 0, args, 5, extra.length);
        return GatewayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void onlyAnAuthenticatedOperatorMayVerifyTheRouteTable() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            int admin = gateway.adminPort();
            HttpResponse<String> none = call("POST", admin, "/routes/verify", null);
            assertEquals(401, none.statusCode(), none.body());
            assertEquals(401, call("POST", admin, "/routes/verify?repair=true",
                    "wrong-0123456789abcdef0123456789abcdef").statusCode());
            assertEquals(401, call("POST", admin, "/routes/verify", TestGateway.OPERATOR_TOKEN + "x").statusCode());
            assertEquals(405, call("GET", admin, "/routes/verify", TestGateway.OPERATOR_TOKEN).statusCode());
            HttpResponse<String> bad = call("POST", admin, "/routes/verify?repair=yes", TestGateway.OPERATOR_TOKEN);
            assertEquals(400, bad.statusCode(), bad.body());
            HttpResponse<String> ok = call("POST", admin, "/routes/verify", TestGateway.OPERATOR_TOKEN);
            assertEquals(200, ok.statusCode(), ok.body());
            assertTrue(ok.body().contains("\"found\":0"), ok.body());
        }
    }

    @Test
    void reportsAndRepairsTheLostRouteOfAConnectedDevice() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start()) {
            Mqtt3BlockingClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-lost").buildBlocking();
            device.connect();
            try {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                assertEquals(0, cli(gateway, out, err), err.toString(StandardCharsets.UTF_8));
                String clean = out.toString(StandardCharsets.UTF_8);
                assertTrue(clean.contains("\"live\":1"), clean);

                Route route = gateway.routes().lookup("dev-lost").toCompletableFuture().get(10, TimeUnit.SECONDS)
                        .orElseThrow();
                gateway.routes().remove(route).toCompletableFuture().get(10, TimeUnit.SECONDS);
                out.reset();
                assertEquals(6, cli(gateway, out, err), "differences remain: " + err.toString(StandardCharsets.UTF_8));
                String answer = out.toString(StandardCharsets.UTF_8);
                assertTrue(answer.contains("\"kind\":\"missing\"") && answer.contains("\"clientId\":\"dev-lost\""),
                        answer);

                out.reset();
                assertEquals(0, cli(gateway, out, err, "--repair"), out.toString(StandardCharsets.UTF_8));
                String repaired = out.toString(StandardCharsets.UTF_8);
                assertTrue(repaired.contains("\"repaired\":1"), repaired);
                assertEquals(route, gateway.routes().lookup("dev-lost").toCompletableFuture()
                        .get(10, TimeUnit.SECONDS).orElseThrow());
            } finally {
                device.disconnect();
            }
        }
    }
}
