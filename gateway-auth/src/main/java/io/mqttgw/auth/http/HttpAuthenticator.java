package io.mqttgw.auth.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.auth.cache.CacheMaintenance;
import io.mqttgw.auth.cache.DeviceKey;
import io.mqttgw.auth.cache.ResultCache;
import io.mqttgw.auth.http.HttpAuthMetrics.Source;
import io.mqttgw.auth.resilience.CallLimiter;
import io.mqttgw.auth.resilience.CircuitBreaker;
import io.mqttgw.auth.resilience.IdentityGuard;
import io.mqttgw.auth.x509.FingerprintPins;
import io.mqttgw.auth.x509.Fingerprints;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.HealthStatus;
import java.io.IOException;
import java.net.ConnectException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code auth.provider: http}. For each CONNECT, in order: a pinned client id with another certificate is refused;
 * a remembered answer for the same device and credentials is returned at once; a call already in flight for them is
 * shared; an identity held after too many denies, or with its calls already in flight, is refused with server
 * unavailable without a call ({@link IdentityGuard}: such a CONNECT never reaches {@code auth.http.on-failure},
 * which could let it in); otherwise one call is made, if the circuit breaker lets it and within the bound on calls
 * in flight (or after a wait in a bounded queue). A call that fails, and one not made for lack of capacity, is
 * decided by {@code auth.http.on-failure} and not remembered. Called on event loops: never blocks, returns before
 * the answer. Thread-safe.
 */
public final class HttpAuthenticator implements Authenticator {
    private static final Logger LOG = LoggerFactory.getLogger(HttpAuthenticator.class);
    private static final long LOG_INTERVAL = TimeUnit.SECONDS.toNanos(10);
    private static final AuthResult PIN_MISMATCH = AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED);
    /**
     * The answer to a CONNECT an identity bound stops: "come back later", not "wrong password", since the
     * credentials were not checked and may be the real device's.
     */
    private static final AuthResult IDENTITY_REFUSED = AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE);

    private final AuthService service;
    private final FailurePolicy onFailure;
    private final FingerprintPins pins;
    /** Reloadable ({@link #reconfigure}): answers stored from then on take the new TTLs, stored ones keep theirs. */
    private volatile long allowTtl;
    private volatile long denyTtl;
    private final LongSupplier nanoClock;
    private final CacheMaintenance cacheMaintenance;
    private final ResultCache cache;
    private final CircuitBreaker breaker;
    private final CallLimiter limiter;
    private final IdentityGuard identities;
    private final HttpAuthMetrics metrics;
    /** The cache TTLs; everything else of the auth service needs a restart (connections, pins, limits). */
    private static final java.util.Set<String> RELOADABLE = java.util.Set.of(
            HttpAuthConfigKeys.CACHE_ALLOW_TTL.name(), HttpAuthConfigKeys.CACHE_DENY_TTL.name());
    private final ConcurrentHashMap<String, CompletableFuture<AuthResult>> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong lastFailureLog = new AtomicLong();
    private final AtomicLong unloggedFailures = new AtomicLong();
    private volatile String lastFailure = "none";

    /** @param nanoClock monotonic time in nanoseconds ({@code System::nanoTime} outside tests) */
    public HttpAuthenticator(HttpAuthSettings settings, AuthService service, MeterRegistry meters,
                             LongSupplier nanoClock) {
        this.service = service;
        this.onFailure = settings.onFailure();
        this.pins = settings.pins();
        this.allowTtl = settings.allowTtl().toNanos();
        this.denyTtl = settings.denyTtl().toNanos();
        this.nanoClock = nanoClock;
        // the caches' upkeep on their own thread: an event loop only records its lookup (CacheMaintenance says why)
        this.cacheMaintenance = CacheMaintenance.start();
        this.cache = new ResultCache(settings.cacheMaxEntries(), nanoClock, cacheMaintenance);
        this.breaker = new CircuitBreaker(settings.breakerThreshold(), settings.breakerOpen().toNanos(), nanoClock);
        this.limiter = new CallLimiter(settings.maxInFlight(), settings.maxQueued(),
                settings.authTimeout().toNanos(), nanoClock);
        HttpAuthSettings.IdentityLimits id = settings.identity();
        this.identities = new IdentityGuard(id.maxInFlight(), id.deniedCalls(), id.denyWindow().toNanos(),
                id.maxTracked(), nanoClock, cacheMaintenance);
        this.metrics = new HttpAuthMetrics(meters, cache, limiter, breaker, identities);
        this.lastFailureLog.set(nanoClock.getAsLong() - LOG_INTERVAL);
    }

    @Override
    public java.util.Set<String> reloadableKeys() {
        return RELOADABLE;
    }

    @Override
    public void reconfigure(io.mqttgw.core.config.GatewayConfig next) {
        HttpAuthSettings settings = HttpAuthSettings.from(next.values());
        allowTtl = settings.allowTtl().toNanos();
        denyTtl = settings.denyTtl().toNanos();
    }

    @Override
    public CompletionStage<AuthResult> authenticate(AuthRequest request) {
        String fingerprint = Fingerprints.sha256(request.certificate());
        if (pins != null) {
            String pin = pins.pinOf(request.clientId());
            if (pin != null && !pin.equals(fingerprint)) {
                metrics.result(PIN_MISMATCH, Source.PIN);
                return CompletableFuture.completedFuture(PIN_MISMATCH);
            }
        }
        String key = DeviceKey.of(request, fingerprint);
        AuthResult cached = cache.get(key);
        if (cached != null) {
            metrics.result(cached, Source.CACHE);
            return CompletableFuture.completedFuture(cached);
        }
        CompletableFuture<AuthResult> mine = new CompletableFuture<>();
        CompletableFuture<AuthResult> shared = inFlight.putIfAbsent(key, mine);
        if (shared != null) {
            metrics.coalesced();
            return shared.minimalCompletionStage();
        }
        String identity = IdentityGuard.identityOf(request.clientId(), fingerprint);
        IdentityGuard.Admission admission = identities.tryAcquire(identity);
        if (admission != IdentityGuard.Admission.CALL) {
            metrics.identityRefused(admission == IdentityGuard.Admission.HELD);
            finish(key, mine, IDENTITY_REFUSED, Source.IDENTITY, 0, null);
        } else if (!breaker.tryAcquire()) {
            metrics.skipped("breaker_open");
            finish(key, mine, onFailure.decide(request), Source.POLICY, 0, identity);
        } else {
            limiter.submit(new CallLimiter.Call() {
                @Override
                public void start() {
                    call(key, identity, mine, request, fingerprint);
                }

                @Override
                public void rejected(boolean expired) {
                    metrics.skipped(expired ? "queue_expired" : "queue_full");
                    finish(key, mine, onFailure.decide(request), Source.POLICY, 0, identity);
                }
            });
        }
        return mine.minimalCompletionStage();
    }

    private void call(String key, String identity, CompletableFuture<AuthResult> mine, AuthRequest request,
                      String fingerprint) {
        long start = nanoClock.getAsLong();
        CompletionStage<ServiceAnswer> stage;
        try {
            stage = service.call(request, fingerprint);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((answer, error) -> {
            try {
                metrics.latency(nanoClock.getAsLong() - start);
                if (error != null) {
                    failed(error);
                    finish(key, mine, onFailure.decide(request), Source.POLICY, 0, identity);
                    return;
                }
                breaker.onSuccess();
                AuthResult result = answer.result();
                metrics.call(result.allowed() ? "allow" : "deny");
                long ttl = answer.maxAgeNanos() >= 0 ? answer.maxAgeNanos() : result.allowed() ? allowTtl : denyTtl;
                String pin = result.attributes().get(ResponseContract.PIN_ATTRIBUTE);
                if (result.allowed() && pin != null && !pinMatches(pin, fingerprint)) {
                    identities.denied(identity);
                    finish(key, mine, PIN_MISMATCH, Source.PIN, ttl, identity);
                } else {
                    if (result.allowed()) {
                        identities.allowed(identity);
                    } else {
                        identities.denied(identity);
                    }
                    finish(key, mine, result, Source.SERVICE, ttl, identity);
                }
            } finally {
                limiter.release();
            }
        });
    }

    private static boolean pinMatches(String pin, String fingerprint) {
        try {
            return Fingerprints.normalize(pin).equals(fingerprint);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** @param identity the identity whose in-flight permit this CONNECT holds, or null when it holds none */
    private void finish(String key, CompletableFuture<AuthResult> mine, AuthResult result, Source source, long ttl,
                        String identity) {
        if (ttl > 0) {
            cache.put(key, result, ttl);
        }
        // the permit goes back before the device hears the answer, so its next CONNECT is not refused as busy
        if (identity != null) {
            identities.release(identity);
        }
        inFlight.remove(key, mine);
        metrics.result(result, source);
        mine.complete(result);
    }

    private void failed(Throwable error) {
        boolean wasClosed = breaker.state() == CircuitBreaker.State.CLOSED;
        breaker.onFailure();
        Throwable cause = unwrap(error);
        String outcome = outcomeOf(cause);
        metrics.call(outcome);
        lastFailure = outcome + ": " + cause;
        if (wasClosed && breaker.state() != CircuitBreaker.State.CLOSED) {
            LOG.warn("auth service circuit breaker opened after {} consecutive failed calls (last {}); "
                    + "auth.http.on-failure decides until a probe call succeeds", breaker.consecutiveFailures(),
                    lastFailure);
        }
        long now = nanoClock.getAsLong();
        long last = lastFailureLog.get();
        if (now - last >= LOG_INTERVAL && lastFailureLog.compareAndSet(last, now)) {
            LOG.warn("auth service call failed ({}), {} more failed since the last report", lastFailure,
                    unloggedFailures.getAndSet(0));
        } else {
            unloggedFailures.incrementAndGet();
        }
    }

    static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static String outcomeOf(Throwable cause) {
        if (cause instanceof AuthServiceException a) {
            return a.outcome();
        }
        if (cause instanceof TimeoutException) {
            return "timeout";
        }
        if (cause instanceof ConnectException) {
            return "connect_failed";
        }
        if (cause instanceof IOException) {
            return "io_error";
        }
        return "error";
    }

    @Override
    public HealthStatus health() {
        CircuitBreaker.State state = breaker.state();
        if (state == CircuitBreaker.State.CLOSED) {
            return HealthStatus.UP;
        }
        return HealthStatus.degraded("auth service circuit breaker " + state.name().toLowerCase(Locale.ROOT)
                + " (last failure " + lastFailure + "); auth.http.on-failure decides CONNECTs the cache cannot answer");
    }

    @Override
    public void close() {
        try {
            service.close();
        } finally {
            cacheMaintenance.close();
        }
    }

    /** The outcome and message of the latest failed call, for health and tests. */
    String lastFailure() {
        return lastFailure;
    }

    CircuitBreaker breaker() {
        return breaker;
    }

    CallLimiter limiter() {
        return limiter;
    }

    IdentityGuard identities() {
        return identities;
    }
}
