package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.auth.testkit.AuthServiceStub;
import io.mqttgw.auth.testkit.AuthServiceStub.Reply;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.AuthResult.Decision;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.testkit.UncaughtExceptionsExtension;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile device gets from the http authenticator (async-http-client, real sockets) in front of a real HTTP
 * auth service that records every call: password floods, one identity flooding the call limiter, client ids that
 * try to move the call to another path.
 */
class HttpAuthAttackIT {
    /** The auth client's I/O threads and its timer: none may die unnoticed. */
    @RegisterExtension
    static final UncaughtExceptionsExtension UNCAUGHT = UncaughtExceptionsExtension.inThreads("auth-http");

    @TempDir
    Path dir;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private AuthServiceStub service(Function<AuthServiceStub.Call, Reply> responder) throws Exception {
        AuthServiceStub s = AuthServiceStub.start(responder);
        toClose.add(s);
        return s;
    }

    private HttpAuthenticator authenticator(String url, String... keyValues) {
        TestGateway config = TestGateway.tcp(dir).with("auth.provider", "http").with("auth.http.url", url)
                .with("auth.timeout", "30s").with("auth.http.request-timeout", "20s");
        for (int i = 0; i < keyValues.length; i += 2) {
            config.with(keyValues[i], keyValues[i + 1]);
        }
        HttpAuthenticator a = (HttpAuthenticator) new HttpAuthenticatorProvider()
                .create(new ProviderContext(config.config(), meters));
        toClose.add(a::close);
        return a;
    }

    private static AuthRequest attempt(String clientId, String password) {
        return new AuthRequest(clientId, "user", password.getBytes(StandardCharsets.UTF_8), null, null,
                new InetSocketAddress("127.0.0.1", 40000), "tcp");
    }

    private static AuthResult answer(java.util.concurrent.CompletionStage<AuthResult> s) throws Exception {
        return s.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static List<AuthResult> all(List<CompletableFuture<AuthResult>> answers) throws Exception {
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        return answers.stream().map(CompletableFuture::join).toList();
    }

    @Test
    void twoHundredPasswordsForOneIdentityCostAtMostTheDeniedCallsOneAfterAnother() throws Exception {
        AuthServiceStub s = service(call -> Reply.json("{\"allow\":false,\"reason\":\"bad_credentials\"}"));
        HttpAuthenticator auth = authenticator(s.url("/devices/{client-id}"), "auth.http.identity.denied-calls", "5");
        int refusedWithoutCall = 0;
        for (int i = 0; i < 200; i++) {
            AuthResult r = answer(auth.authenticate(attempt("victim", "guess-" + i)));
            assertTrue(!r.allowed(), "attempt " + i + " allowed");
            if (r.decision() == Decision.SERVER_UNAVAILABLE) {
                refusedWithoutCall++;
            }
        }
        assertEquals(5, s.callCount(), "calls the service received");
        assertEquals(195, refusedWithoutCall);
        assertEquals(195, meters.get("mqttgw.auth.http.identity.refused").tags("cause", "held").counter().count());
    }

    @Test
    void twoHundredConcurrentPasswordsForOneIdentityCostAtMostTheDeniedCalls() throws Exception {
        AuthServiceStub s = service(call -> Reply.json("{\"allow\":false,\"reason\":\"bad_credentials\"}")
                .after(50));
        HttpAuthenticator auth = authenticator(s.url("/devices/{client-id}"), "auth.http.identity.denied-calls", "5");
        List<CompletableFuture<AuthResult>> answers = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 10; i++) {
                answers.add(auth.authenticate(attempt("victim", "guess-" + round + "-" + i)).toCompletableFuture());
            }
            Thread.sleep(20);
        }
        assertTrue(all(answers).stream().noneMatch(AuthResult::allowed));
        assertTrue(s.callCount() <= 5, "calls the service received: " + s.callCount());
        assertTrue(s.peakAwaiting() <= 1, "calls of one identity at once: " + s.peakAwaiting());
    }

    @Test
    void oneIdentityFloodingTheLimiterDoesNotKeepAnotherFromTheService() throws Exception {
        AuthServiceStub s = service(call -> call.uri().endsWith("/flooder")
                ? Reply.json("{\"allow\":false}").after(2000)
                : Reply.json("{\"allow\":true,\"attributes\":{\"tenant\":\"from-service\"}}"));
        // a small limiter: without a per-identity bound the flood below fills it and its queue, and every other
        // CONNECT is decided by on-failure (here: let in on its certificate alone, without asking the service)
        HttpAuthenticator auth = authenticator(s.url("/devices/{client-id}"), "auth.http.max-in-flight", "4",
                "auth.http.max-queued", "8", "auth.http.on-failure", "allow-verified-certificate");
        List<CompletableFuture<AuthResult>> flood = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            flood.add(auth.authenticate(new AuthRequest("flooder", "u", ("pw-" + i).getBytes(StandardCharsets.UTF_8),
                    "flooder", null, new InetSocketAddress("127.0.0.1", 40001), "tls")).toCompletableFuture());
        }
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("good-device").getCertificate();
        AuthResult good = answer(auth.authenticate(new AuthRequest("good-device", null, null, "good-device", cert,
                new InetSocketAddress("127.0.0.1", 40002), "tls")));
        assertTrue(good.allowed());
        assertEquals("from-service", good.attributes().get("tenant"), "decided by the service, not by on-failure");
        assertTrue(s.calls().stream().anyMatch(c -> c.uri().equals("/devices/good-device")));
        List<AuthResult> flooded = all(flood);
        assertTrue(flooded.stream().noneMatch(AuthResult::allowed), "the flooder was never let in by on-failure");
        assertEquals(0, meters.get("mqttgw.auth.http.skipped").tags("cause", "queue_full").counter().count());
        assertEquals(1, s.calls().stream().filter(c -> c.uri().endsWith("/flooder")).count(),
                "the flooder's calls that reached the service");
        assertEquals(499, meters.get("mqttgw.auth.http.identity.refused").tags("cause", "busy").counter().count());
    }

    @Test
    void clientIdsWithDotsAndSlashesReachOnlyTheIntendedPath() throws Exception {
        AuthServiceStub s = service(call -> Reply.json("{\"allow\":false}"));
        HttpAuthenticator auth = authenticator(s.url("/devices/{client-id}/auth"));
        List<String> hostile = List.of("..", ".", "a/../admin", "%2e%2e", "../../admin", "?x=1", "#frag", "a b",
                "\u00e4\ud83d\ude00", "a\r\nX-Injected: 1", "..;", "...", "\\..\\admin");
        for (String id : hostile) {
            answer(auth.authenticate(attempt(id, "pw")));
        }
        assertEquals(hostile.size(), s.callCount(), "one call per client id");
        for (AuthServiceStub.Call call : s.calls()) {
            String path = call.uri();
            assertTrue(path.startsWith("/devices/") && path.endsWith("/auth"), "path " + path);
            String segment = path.substring("/devices/".length(), path.length() - "/auth".length());
            assertTrue(segment.matches("[A-Za-z0-9_~%-]+"), "one encoded segment: " + path);
            assertEquals(null, call.header("X-Injected"));
        }
        List<String> decoded = s.calls().stream().map(c -> java.net.URLDecoder.decode(c.uri().substring(
                "/devices/".length(), c.uri().length() - "/auth".length()).replace("+", "%2B"),
                StandardCharsets.UTF_8)).toList();
        assertEquals(hostile, decoded, "the service reads back each client id exactly");
    }

    private static Mqtt3BlockingClient device(Gateway gateway, String clientId) {
        return Mqtt3Client.builder().identifier(clientId).serverHost("127.0.0.1").serverPort(gateway.tcpPort())
                .buildBlocking();
    }

    @Test
    void twoHundredMqttConnectsWithWrongPasswordsReachTheServiceFiveTimesAndANeighbourStillConnects()
            throws Exception {
        AuthServiceStub s = service(call -> call.body().contains("\"password\":\"right\"") ? Reply.allow()
                : Reply.json("{\"allow\":false,\"reason\":\"bad_credentials\"}"));
        try (Gateway gateway = TestGateway.tcp(dir.resolve("gateway")).with("auth.provider", "http")
                .with("auth.http.url", s.url("/devices/{client-id}")).with("auth.timeout", "30s")
                .with("auth.http.request-timeout", "20s").start()) {
            int badCredentials = 0;
            int unavailable = 0;
            for (int i = 0; i < 200; i++) {
                byte[] guess = ("guess-" + i).getBytes(StandardCharsets.UTF_8);
                Mqtt3BlockingClient c = device(gateway, "victim");
                Mqtt3ConnAckException e = assertThrows(Mqtt3ConnAckException.class, () -> c.connectWith()
                        .simpleAuth().username("victim").password(guess).applySimpleAuth().send());
                Mqtt3ConnAckReturnCode code = e.getMqttMessage().getReturnCode();
                if (code == Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD) {
                    badCredentials++;
                } else if (code == Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE) {
                    unavailable++;
                }
            }
            assertEquals(5, s.callCount(), "calls the service received for 200 passwords");
            assertEquals(5, badCredentials);
            assertEquals(195, unavailable);
            Mqtt3BlockingClient neighbour = device(gateway, "neighbour");
            neighbour.connectWith().simpleAuth().username("neighbour").password("right".getBytes(
                    StandardCharsets.UTF_8)).applySimpleAuth().send();
            neighbour.disconnect();
            assertEquals(6, s.callCount());
            assertEquals("/devices/neighbour", s.calls().get(5).uri());
        }
    }
}
