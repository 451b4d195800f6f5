package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.auth.resilience.CircuitBreaker;
import io.mqttgw.auth.testkit.AuthServiceStub;
import io.mqttgw.auth.testkit.AuthServiceStub.Reply;
import io.mqttgw.auth.x509.Fingerprints;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.AuthResult.Decision;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The http authenticator as the gateway builds it (async-http-client, real sockets) against a real HTTP service. */
class HttpAuthenticatorIT {
    /** The client's I/O threads and its timer (request timeouts, connection retries): none may die unnoticed. */
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

    private AuthServiceStub service(java.util.function.Function<AuthServiceStub.Call, Reply> responder)
            throws Exception {
        AuthServiceStub s = AuthServiceStub.start(responder);
        toClose.add(s);
        return s;
    }

    private HttpAuthenticator authenticator(String url, String... keyValues) {
        TestGateway config = TestGateway.tcp(dir).with("auth.provider", "http").with("auth.http.url", url);
        for (int i = 0; i < keyValues.length; i += 2) {
            config.with(keyValues[i], keyValues[i + 1]);
        }
        HttpAuthenticator a = (HttpAuthenticator) new HttpAuthenticatorProvider()
                .create(new ProviderContext(config.config(), meters));
        toClose.add(a::close);
        return a;
    }

    private static AuthRequest device(String id) {
        return new AuthRequest(id, "user-" + id, "pw".getBytes(StandardCharsets.UTF_8), null, null,
                new InetSocketAddress("127.0.0.1", 40000), "tcp");
    }

    private static AuthResult answer(CompletableFuture<AuthResult> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static AuthResult answer(java.util.concurrent.CompletionStage<AuthResult> s) throws Exception {
        return answer(s.toCompletableFuture());
    }

    private double count(String name, String... tags) {
        return meters.get(name).tags(tags).counter().count();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void allowsWithTheAnswersAttributesAndSendsTheConnectAsConfigured() throws Exception {
        AuthServiceStub s = service(call -> Reply.json("{\"allow\":true,\"attributes\":{\"tenant\":\"acme\","
                + "\"acl.publish\":\"fleet/{client-id}/#\"}}"));
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        HttpAuthenticator auth = authenticator(s.url("/devices/{client-id}/auth?listener={listener}"),
                "auth.http.headers.Authorization", "Bearer t0ken");
        AuthResult r = answer(auth.authenticate(new AuthRequest("dev-1", "alice", "s3cret".getBytes(
                StandardCharsets.UTF_8), "dev-1", cert, new InetSocketAddress("127.0.0.1", 40123), "tls")));
        assertTrue(r.allowed());
        assertEquals(Map.of("tenant", "acme", AuthResult.ACL_PUBLISH, "fleet/{client-id}/#"), r.attributes());
        AuthServiceStub.Call call = s.calls().get(0);
        assertEquals("POST", call.method());
        assertEquals("/devices/dev-1/auth?listener=tls", call.uri());
        assertEquals("Bearer t0ken", call.header("Authorization"));
        assertEquals("application/json", call.header("Content-Type"));
        assertEquals("{\"clientId\":\"dev-1\",\"username\":\"alice\",\"password\":\"s3cret\","
                + "\"certificateIdentity\":\"dev-1\",\"certificateFingerprint\":\"" + Fingerprints.sha256(cert)
                + "\",\"remoteAddress\":\"127.0.0.1:40123\",\"listener\":\"tls\"}", call.body());
        assertEquals(1, count("mqttgw.auth.http.calls", "outcome", "allow"));
    }

    @Test
    void refusesWithTheReasonTheServiceGives() throws Exception {
        AuthServiceStub s = service(call -> switch (call.uri()) {
            case "/auth/dev-pw" -> Reply.json("{\"allow\":false,\"reason\":\"bad_credentials\"}");
            case "/auth/dev-401" -> Reply.status(401);
            case "/auth/dev-403" -> Reply.status(403);
            default -> Reply.json("{\"allow\":false}");
        });
        HttpAuthenticator auth = authenticator(s.url("/auth/{client-id}"));
        assertEquals(Decision.BAD_CREDENTIALS, answer(auth.authenticate(device("dev-pw"))).decision());
        assertEquals(Decision.BAD_CREDENTIALS, answer(auth.authenticate(device("dev-401"))).decision());
        assertEquals(Decision.NOT_AUTHORIZED, answer(auth.authenticate(device("dev-403"))).decision());
        assertEquals(Decision.NOT_AUTHORIZED, answer(auth.authenticate(device("dev-other"))).decision());
        assertEquals(4, count("mqttgw.auth.http.calls", "outcome", "deny"));
    }

    @Test
    void aSecondConnectOfTheDeviceMakesNoCall() throws Exception {
        AuthServiceStub s = service(call -> Reply.allow());
        HttpAuthenticator auth = authenticator(s.url("/auth"));
        assertTrue(answer(auth.authenticate(device("dev-1"))).allowed());
        assertTrue(answer(auth.authenticate(device("dev-1"))).allowed());
        assertEquals(1, s.callCount());
        assertEquals(1, meters.get("mqttgw.auth.cache.hits").functionCounter().count());
    }

    @Test
    void aDenyIsRememberedToo() throws Exception {
        AuthServiceStub s = service(call -> Reply.status(403));
        HttpAuthenticator auth = authenticator(s.url("/auth"), "auth.http.cache.deny-ttl", "1m");
        assertEquals(Decision.NOT_AUTHORIZED, answer(auth.authenticate(device("dev-1"))).decision());
        assertEquals(Decision.NOT_AUTHORIZED, answer(auth.authenticate(device("dev-1"))).decision());
        assertEquals(1, s.callCount());
    }

    @Test
    void anAnswerMarkedNoStoreIsAskedForEveryTime() throws Exception {
        AuthServiceStub s = service(call -> Reply.allow().withHeader("Cache-Control", "no-store"));
        HttpAuthenticator auth = authenticator(s.url("/auth"));
        answer(auth.authenticate(device("dev-1")));
        answer(auth.authenticate(device("dev-1")));
        assertEquals(2, s.callCount());
    }

    @Test
    void aHundredConcurrentConnectsOfOneDeviceMakeOneCall() throws Exception {
        AuthServiceStub s = service(call -> Reply.allow().after(300));
        HttpAuthenticator auth = authenticator(s.url("/auth"));
        ExecutorService loops = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<CompletableFuture<AuthResult>>> started = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                started.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return auth.authenticate(device("dev-1")).toCompletableFuture();
                }, loops));
            }
            go.countDown();
            for (CompletableFuture<CompletableFuture<AuthResult>> f : started) {
                assertTrue(answer(f.get(10, TimeUnit.SECONDS)).allowed());
            }
        } finally {
            loops.shutdownNow();
        }
        assertEquals(1, s.callCount());
        assertEquals(99, meters.get("mqttgw.auth.coalesced").counter().count());
    }

    @Test
    void aSlowServiceHitsTheRequestTimeoutAndThePolicyDecides() throws Exception {
        AuthServiceStub s = service(call -> Reply.allow().after(5000));
        HttpAuthenticator refusing = authenticator(s.url("/auth"), "auth.http.request-timeout", "300ms");
        long start = System.nanoTime();
        assertEquals(Decision.SERVER_UNAVAILABLE, answer(refusing.authenticate(device("dev-1"))).decision());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms >= 250 && ms < 2000, "answered after " + ms + " ms");
        assertEquals(1, count("mqttgw.auth.http.calls", "outcome", "timeout"));

        HttpAuthenticator lenient = authenticator(s.url("/auth"), "auth.http.request-timeout", "300ms",
                "auth.http.on-failure", "allow-verified-certificate");
        AuthRequest verified = new AuthRequest("dev-2", null, null, "dev-2", null, null, "tls");
        assertTrue(answer(lenient.authenticate(verified)).allowed(), "verified certificate let in");
        assertEquals(Decision.SERVER_UNAVAILABLE, answer(lenient.authenticate(device("dev-3"))).decision(),
                "no certificate: refused");
    }

    @Test
    void aServiceThatIsDownOpensTheBreakerWhichClosesWhenItReturns() throws Exception {
        AuthServiceStub first = AuthServiceStub.start(call -> Reply.allow());
        int port = first.port();
        first.close();
        HttpAuthenticator auth = authenticator("http://127.0.0.1:" + port + "/auth",
                "auth.http.breaker.failure-threshold", "3", "auth.http.breaker.open-duration", "500ms");
        for (int i = 0; i < 3; i++) {
            assertEquals(Decision.SERVER_UNAVAILABLE, answer(auth.authenticate(device("dev-" + i))).decision());
        }
        assertEquals(CircuitBreaker.State.OPEN, auth.breaker().state());
        assertFalse(auth.health().up());
        assertTrue(auth.health().detail().contains("connect_failed"), auth.health().detail());
        CompletableFuture<AuthResult> whileOpen = auth.authenticate(device("dev-9")).toCompletableFuture();
        assertTrue(whileOpen.isDone(), "no call while open: answered at once");
        assertEquals(1, count("mqttgw.auth.http.skipped", "cause", "breaker_open"));
        assertEquals(3, count("mqttgw.auth.http.calls", "outcome", "connect_failed"));

        AuthServiceStub back = AuthServiceStub.startOn(port, call -> Reply.allow());
        toClose.add(back);
        Thread.sleep(600);
        assertTrue(answer(auth.authenticate(device("dev-9"))).allowed(), "the probe went through");
        assertEquals(CircuitBreaker.State.CLOSED, auth.breaker().state());
        assertTrue(auth.health().up());
        assertTrue(answer(auth.authenticate(device("dev-10"))).allowed());
    }

    @Test
    void aBurstOfFiveThousandConnectsIsServedThroughAPoolOfAThousand() throws Exception {
        AuthServiceStub s = service(call -> Reply.allow().after(500));
        HttpAuthenticator auth = authenticator(s.url("/auth"), "auth.timeout", "60s",
                "auth.http.request-timeout", "30s");
        List<CompletableFuture<AuthResult>> answers = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            answers.add(auth.authenticate(device("burst-" + i)).toCompletableFuture());
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long allowed = answers.stream().filter(f -> f.join().allowed()).count();
        assertEquals(5000, allowed, "every CONNECT allowed; calls by outcome: " + outcomes() + "; last failure "
                + auth.lastFailure());
        assertEquals(5000, s.callCount());
        assertTrue(s.peakAwaiting() <= 1000, "peak " + s.peakAwaiting());
        assertTrue(s.peakAwaiting() > 100, "more calls at once than the pool of 100 that ran dry in the field: peak "
                + s.peakAwaiting());
        assertEquals(5000, count("mqttgw.auth.http.calls", "outcome", "allow"), outcomes());
        await("all slots released", () -> auth.limiter().inFlight() == 0);
    }

    private String outcomes() {
        StringBuilder sb = new StringBuilder();
        for (String o : HttpAuthMetrics.CALL_OUTCOMES) {
            sb.append(o).append('=').append(count("mqttgw.auth.http.calls", "outcome", o)).append(' ');
        }
        return sb.toString();
    }
}
