package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.auth.resilience.CircuitBreaker;
import io.mqttgw.auth.x509.Fingerprints;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.AuthResult.Decision;
import io.mqttgw.core.testkit.TestPki;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The authenticator's own logic against a service the test answers by hand, on a clock the test moves. */
class HttpAuthenticatorTest {
    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final FakeService service = new FakeService();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    static final class FakeService implements AuthService {
        final List<AuthRequest> requests = new ArrayList<>();
        final List<CompletableFuture<ServiceAnswer>> pending = new ArrayList<>();

        @Override
        public synchronized CompletionStage<ServiceAnswer> call(AuthRequest request, String fingerprint) {
            requests.add(request);
            CompletableFuture<ServiceAnswer> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }

        synchronized int calls() {
            return requests.size();
        }

        void answer(int i, AuthResult result) {
            pending.get(i).complete(new ServiceAnswer(result, ServiceAnswer.DEFAULT_TTL));
        }

        void fail(int i) {
            pending.get(i).completeExceptionally(new ConnectException("Connection refused"));
        }

        @Override
        public void close() {
        }
    }

    private HttpAuthenticator authenticator(String extraYaml) {
        return new HttpAuthenticator(TestSettings.from(dir, "auth.http.url: http://auth.local/check\n" + extraYaml),
                service, meters, now::get);
    }

    private static AuthRequest device(String id) {
        return new AuthRequest(id, "user", "pw".getBytes(StandardCharsets.UTF_8), null, null,
                new InetSocketAddress("127.0.0.1", 40000), "tcp");
    }

    private static AuthRequest verifiedDevice(String id) {
        return new AuthRequest(id, null, null, id, null, new InetSocketAddress("127.0.0.1", 40000), "tls");
    }

    private static AuthResult now(CompletionStage<AuthResult> stage) {
        CompletableFuture<AuthResult> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "answered at once");
        return f.join();
    }

    private double count(String name, String... tags) {
        return meters.get(name).tags(tags).counter().count();
    }

    @Test
    void sharesOneCallAmongConcurrentConnectsOfOneDevice() {
        HttpAuthenticator auth = authenticator("");
        List<CompletableFuture<AuthResult>> answers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            answers.add(auth.authenticate(device("dev-1")).toCompletableFuture());
        }
        assertEquals(1, service.calls());
        assertTrue(answers.stream().noneMatch(CompletableFuture::isDone));
        service.answer(0, new AuthResult(Decision.ALLOW, Map.of("tenant", "acme")));
        for (CompletableFuture<AuthResult> a : answers) {
            assertEquals(Map.of("tenant", "acme"), a.join().attributes());
        }
        assertEquals(99, meters.get("mqttgw.auth.coalesced").counter().count());
    }

    @Test
    void answersASecondConnectFromTheCacheUntilTheAllowTtlEnds() {
        HttpAuthenticator auth = authenticator("auth.http.cache.allow-ttl: 60s\n");
        CompletableFuture<AuthResult> first = auth.authenticate(device("dev-1")).toCompletableFuture();
        service.answer(0, AuthResult.ALLOWED);
        assertTrue(first.join().allowed());
        assertTrue(now(auth.authenticate(device("dev-1"))).allowed());
        assertEquals(1, service.calls(), "the second CONNECT made no call");
        assertEquals(1, meters.get("mqttgw.auth.cache.hits").functionCounter().count());
        AuthRequest otherPassword = new AuthRequest("dev-1", "user", "other".getBytes(StandardCharsets.UTF_8), null,
                null, null, "tcp");
        auth.authenticate(otherPassword);
        assertEquals(2, service.calls(), "other credentials are not answered from the cache");
        service.answer(1, AuthResult.ALLOWED);
        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        auth.authenticate(device("dev-1"));
        assertEquals(3, service.calls(), "expired");
    }

    @Test
    void aReloadedAllowTtlAppliesToAnswersStoredAfterIt() {
        HttpAuthenticator auth = authenticator("auth.http.cache.allow-ttl: 60s\n");
        assertEquals(java.util.Set.of("auth.http.cache.allow-ttl", "auth.http.cache.deny-ttl"), auth.reloadableKeys());
        auth.reconfigure(TestSettings.config(dir, "auth.http.url: http://auth.local/check\n"
                + "auth.http.cache.allow-ttl: 5s\n"));
        CompletableFuture<AuthResult> first = auth.authenticate(device("dev-1")).toCompletableFuture();
        service.answer(0, AuthResult.ALLOWED);
        assertTrue(first.join().allowed());
        now.addAndGet(TimeUnit.SECONDS.toNanos(4));
        assertTrue(now(auth.authenticate(device("dev-1"))).allowed());
        assertEquals(1, service.calls(), "still within the reloaded 5 s");
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        auth.authenticate(device("dev-1"));
        assertEquals(2, service.calls(), "expired after the reloaded 5 s, not the 60 s it started with");
    }

    @Test
    void remembersADenyForTheDenyTtl() {
        HttpAuthenticator auth = authenticator("auth.http.cache.deny-ttl: 10s\n");
        CompletableFuture<AuthResult> first = auth.authenticate(device("dev-1")).toCompletableFuture();
        service.answer(0, AuthResult.deny(Decision.BAD_CREDENTIALS));
        assertEquals(Decision.BAD_CREDENTIALS, first.join().decision());
        now.addAndGet(TimeUnit.SECONDS.toNanos(9));
        assertEquals(Decision.BAD_CREDENTIALS, now(auth.authenticate(device("dev-1"))).decision());
        assertEquals(1, service.calls());
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        auth.authenticate(device("dev-1"));
        assertEquals(2, service.calls());
        assertEquals(1, count("mqttgw.auth.results", "result", "bad_credentials", "source", "cache"));
    }

    @Test
    void aFailedCallIsDecidedByThePolicyAndNotRemembered() {
        HttpAuthenticator auth = authenticator("auth.http.on-failure: allow-verified-certificate\n");
        CompletableFuture<AuthResult> verified = auth.authenticate(verifiedDevice("dev-1")).toCompletableFuture();
        CompletableFuture<AuthResult> unverified = auth.authenticate(device("dev-2")).toCompletableFuture();
        service.fail(0);
        service.fail(1);
        assertTrue(verified.join().allowed(), "a verified certificate is let in while the service fails");
        assertEquals(Decision.SERVER_UNAVAILABLE, unverified.join().decision());
        auth.authenticate(verifiedDevice("dev-1"));
        assertEquals(3, service.calls(), "the policy's answer was not cached");
        assertEquals(2, count("mqttgw.auth.http.calls", "outcome", "connect_failed"));
    }

    @Test
    void beyondTheCapCallsWaitAndBeyondTheQueueThePolicyDecides() {
        HttpAuthenticator auth = authenticator("auth.http.max-in-flight: 2\nauth.http.max-queued: 1\n");
        List<CompletableFuture<AuthResult>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(auth.authenticate(device("dev-" + i)).toCompletableFuture());
        }
        assertEquals(2, service.calls());
        assertEquals(1, auth.limiter().queued());
        assertEquals(Decision.SERVER_UNAVAILABLE, answers.get(3).join().decision(), "queue full: refused at once");
        service.answer(0, AuthResult.ALLOWED);
        assertEquals(3, service.calls(), "the waiting call started when a slot freed");
        assertEquals("dev-2", service.requests.get(2).clientId());
        assertEquals(1, count("mqttgw.auth.http.skipped", "cause", "queue_full"));
    }

    @Test
    void opensTheBreakerOnRepeatedFailuresAndClosesItWithASuccessfulProbe() {
        HttpAuthenticator auth = authenticator("auth.http.breaker.failure-threshold: 3\n"
                + "auth.http.breaker.open-duration: 5s\n");
        for (int i = 0; i < 3; i++) {
            auth.authenticate(device("dev-" + i));
            service.fail(i);
        }
        assertEquals(CircuitBreaker.State.OPEN, auth.breaker().state());
        assertFalse(auth.health().up());
        assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(device("dev-9"))).decision());
        assertEquals(3, service.calls(), "no call while open");
        now.addAndGet(TimeUnit.SECONDS.toNanos(5));
        CompletableFuture<AuthResult> probe = auth.authenticate(device("dev-9")).toCompletableFuture();
        assertEquals(4, service.calls(), "one probe");
        assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(device("dev-10"))).decision());
        service.answer(3, AuthResult.ALLOWED);
        assertTrue(probe.join().allowed());
        assertEquals(CircuitBreaker.State.CLOSED, auth.breaker().state());
        assertTrue(auth.health().up());
        auth.authenticate(device("dev-10"));
        assertEquals(5, service.calls());
    }

    @Test
    void refusesAPinnedClientIdWithAnotherCertificateWithoutACall() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Certificate right = pki.device("dev-1").getCertificate();
        X509Certificate wrong = pki.device("dev-1").getCertificate();
        Files.writeString(dir.resolve("pins"), "dev-1 " + Fingerprints.sha256(right) + "\n");
        HttpAuthenticator auth = authenticator("auth.http.pins-file: " + dir.resolve("pins") + "\n");
        assertEquals(Decision.NOT_AUTHORIZED, now(auth.authenticate(new AuthRequest("dev-1", null, null, "dev-1",
                wrong, null, "tls"))).decision());
        assertEquals(0, service.calls());
        auth.authenticate(new AuthRequest("dev-1", null, null, "dev-1", right, null, "tls"));
        assertEquals(1, service.calls());
    }

    @Test
    void refusesACertificateOtherThanTheOneTheAnswerPins() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Certificate cert = pki.device("dev-1").getCertificate();
        HttpAuthenticator auth = authenticator("");
        CompletableFuture<AuthResult> a = auth.authenticate(new AuthRequest("dev-1", null, null, "dev-1", cert, null,
                "tls")).toCompletableFuture();
        service.answer(0, new AuthResult(Decision.ALLOW, Map.of(ResponseContract.PIN_ATTRIBUTE,
                Fingerprints.sha256(cert).toUpperCase(Locale.ROOT))));
        assertTrue(a.join().allowed(), "the pin matches (case does not matter)");
        X509Certificate other = pki.device("dev-1").getCertificate();
        CompletableFuture<AuthResult> b = auth.authenticate(new AuthRequest("dev-1", null, null, "dev-1", other, null,
                "tls")).toCompletableFuture();
        service.answer(1, new AuthResult(Decision.ALLOW, Map.of(ResponseContract.PIN_ATTRIBUTE,
                Fingerprints.sha256(cert))));
        assertEquals(Decision.NOT_AUTHORIZED, b.join().decision());
    }

    private static AuthRequest withPassword(String id, String password) {
        return new AuthRequest(id, "user", password.getBytes(StandardCharsets.UTF_8), null, null,
                new InetSocketAddress("127.0.0.1", 40000), "tcp");
    }

    @Test
    void aDeniedIdentityTryingNewPasswordsIsHeldAfterTheDeniedCallsWithoutACall() {
        HttpAuthenticator auth = authenticator("auth.http.identity.denied-calls: 3\n"
                + "auth.http.identity.deny-window: 1m\n");
        for (int i = 0; i < 3; i++) {
            CompletableFuture<AuthResult> a = auth.authenticate(withPassword("dev-1", "guess-" + i))
                    .toCompletableFuture();
            service.answer(i, AuthResult.deny(Decision.BAD_CREDENTIALS));
            assertEquals(Decision.BAD_CREDENTIALS, a.join().decision());
        }
        for (int i = 3; i < 100; i++) {
            assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(withPassword("dev-1", "guess-" + i)))
                    .decision(), "held: answered without a call");
        }
        assertEquals(3, service.calls());
        assertEquals(97, count("mqttgw.auth.http.identity.refused", "cause", "held"));
        assertEquals(97, count("mqttgw.auth.results", "result", "server_unavailable", "source", "identity"));
        auth.authenticate(withPassword("dev-2", "pw"));
        assertEquals(4, service.calls(), "another identity is not held");
        now.addAndGet(TimeUnit.MINUTES.toNanos(1));
        auth.authenticate(withPassword("dev-1", "after-the-window"));
        assertEquals(5, service.calls(), "the window ended");
    }

    @Test
    void aHeldIdentityIsNeverLetInByTheFailurePolicy() {
        HttpAuthenticator auth = authenticator("auth.http.identity.denied-calls: 1\n"
                + "auth.http.on-failure: allow-verified-certificate\n");
        CompletableFuture<AuthResult> a = auth.authenticate(verifiedDevice("dev-1")).toCompletableFuture();
        service.answer(0, AuthResult.deny(Decision.NOT_AUTHORIZED));
        assertEquals(Decision.NOT_AUTHORIZED, a.join().decision());
        AuthRequest again = new AuthRequest("dev-1", "other", null, "dev-1", null, null, "tls");
        assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(again)).decision());
        assertEquals(1, service.calls());
    }

    @Test
    void aCertificateDeviceIsNotHeldByDeniesOfCallersWithoutItsCertificate() throws Exception {
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        HttpAuthenticator auth = authenticator("auth.http.identity.denied-calls: 2\n");
        for (int i = 0; i < 2; i++) {
            CompletableFuture<AuthResult> a = auth.authenticate(withPassword("dev-1", "guess-" + i))
                    .toCompletableFuture();
            service.answer(i, AuthResult.deny(Decision.BAD_CREDENTIALS));
            a.join();
        }
        assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(withPassword("dev-1", "guess-x")))
                .decision(), "the claimed identity is held");
        CompletableFuture<AuthResult> real = auth.authenticate(new AuthRequest("dev-1", null, null, "dev-1", cert,
                null, "tls")).toCompletableFuture();
        assertEquals(3, service.calls(), "the certificate device is asked about");
        service.answer(2, AuthResult.ALLOWED);
        assertTrue(real.join().allowed());
    }

    @Test
    void anAllowEndsTheIdentitysDenyWindow() {
        HttpAuthenticator auth = authenticator("auth.http.identity.denied-calls: 2\n"
                + "auth.http.cache.allow-ttl: 0s\n");
        CompletableFuture<AuthResult> a = auth.authenticate(withPassword("dev-1", "typo")).toCompletableFuture();
        service.answer(0, AuthResult.deny(Decision.BAD_CREDENTIALS));
        a.join();
        CompletableFuture<AuthResult> b = auth.authenticate(withPassword("dev-1", "right")).toCompletableFuture();
        service.answer(1, AuthResult.ALLOWED);
        assertTrue(b.join().allowed());
        CompletableFuture<AuthResult> c = auth.authenticate(withPassword("dev-1", "typo-2")).toCompletableFuture();
        service.answer(2, AuthResult.deny(Decision.BAD_CREDENTIALS));
        c.join();
        auth.authenticate(withPassword("dev-1", "right"));
        assertEquals(4, service.calls(), "one deny since the allow: not held");
    }

    @Test
    void oneIdentityHasOneCallInFlightAndItsOtherCredentialsAreRefusedMeanwhile() {
        HttpAuthenticator auth = authenticator("auth.http.on-failure: allow-verified-certificate\n");
        CompletableFuture<AuthResult> first = auth.authenticate(verifiedDevice("dev-1")).toCompletableFuture();
        for (int i = 0; i < 50; i++) {
            AuthRequest flood = new AuthRequest("dev-1", "u" + i, null, "dev-1", null, null, "tls");
            assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(flood)).decision(),
                    "refused, not let in by the failure policy");
        }
        assertEquals(1, service.calls());
        assertEquals(1, auth.limiter().inFlight());
        assertEquals(50, count("mqttgw.auth.http.identity.refused", "cause", "busy"));
        auth.authenticate(verifiedDevice("dev-2"));
        assertEquals(2, service.calls(), "another identity still calls");
        service.answer(0, AuthResult.ALLOWED);
        assertTrue(first.join().allowed());
        assertEquals(1, auth.identities().busyIdentities(), "dev-1's permit is back");
        auth.authenticate(new AuthRequest("dev-1", "later", null, "dev-1", null, null, "tls"));
        assertEquals(3, service.calls(), "the next CONNECT of dev-1 calls again");
    }

    @Test
    void aCallThatFailsOrIsNotMadeGivesItsIdentityPermitBack() {
        HttpAuthenticator auth = authenticator("auth.http.max-in-flight: 1\nauth.http.max-queued: 0\n");
        CompletableFuture<AuthResult> first = auth.authenticate(device("dev-1")).toCompletableFuture();
        assertEquals(Decision.SERVER_UNAVAILABLE, now(auth.authenticate(device("dev-2"))).decision(),
                "queue full");
        service.fail(0);
        first.join();
        assertEquals(0, auth.identities().busyIdentities());
        auth.authenticate(device("dev-2"));
        assertEquals(2, service.calls());
    }
}
