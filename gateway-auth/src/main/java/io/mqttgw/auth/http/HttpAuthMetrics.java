package io.mqttgw.auth.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mqttgw.auth.cache.ResultCache;
import io.mqttgw.auth.resilience.CallLimiter;
import io.mqttgw.auth.resilience.CircuitBreaker;
import io.mqttgw.auth.resilience.IdentityGuard;
import io.mqttgw.core.spi.AuthResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The meters of HTTP authentication, registered once; the hot path only increments. Thread-safe. */
final class HttpAuthMetrics {
    /** Who decided a CONNECT. */
    enum Source {
        SERVICE, CACHE, POLICY, PIN,
        /** A per-identity bound ({@code auth.http.identity.*}) answered without a call. */
        IDENTITY;

        final String label = name().toLowerCase(Locale.ROOT);
    }

    /** Calls to the service by outcome; the failure labels are those of {@link AuthServiceException#outcome()}. */
    static final List<String> CALL_OUTCOMES = List.of("allow", "deny", "timeout", "connect_failed", "io_error",
            "no_connection", "bad_status", "bad_response", "error");

    /** Why a call was not made. */
    static final List<String> SKIP_CAUSES = List.of("breaker_open", "queue_full", "queue_expired");

    private final Counter[][] results = new Counter[AuthResult.Decision.values().length][Source.values().length];
    private final Map<String, Counter> calls = new HashMap<>();
    private final Map<String, Counter> skipped = new HashMap<>();
    private final Counter identityHeld;
    private final Counter identityBusy;
    private final Counter coalesced;
    private final Timer latency;

    HttpAuthMetrics(MeterRegistry meters, ResultCache cache, CallLimiter limiter, CircuitBreaker breaker,
                    IdentityGuard identities) {
        for (AuthResult.Decision d : AuthResult.Decision.values()) {
            for (Source s : Source.values()) {
                results[d.ordinal()][s.ordinal()] = Counter.builder("mqttgw.auth.results")
                        .tag("result", d.name().toLowerCase(Locale.ROOT)).tag("source", s.label)
                        .description("CONNECTs decided by the http authenticator, by result and by who decided")
                        .register(meters);
            }
        }
        for (String outcome : CALL_OUTCOMES) {
            calls.put(outcome, Counter.builder("mqttgw.auth.http.calls").tag("outcome", outcome)
                    .description("Calls to the auth service, by outcome").register(meters));
        }
        for (String cause : SKIP_CAUSES) {
            skipped.put(cause, Counter.builder("mqttgw.auth.http.skipped").tag("cause", cause)
                    .description("Calls not made, so auth.http.on-failure decided, by cause").register(meters));
        }
        identityHeld = Counter.builder("mqttgw.auth.http.identity.refused").tag("cause", "held")
                .description("CONNECTs refused without a call by a per-identity bound: held after "
                        + "auth.http.identity.denied-calls denies, or busy with auth.http.identity.max-in-flight calls")
                .register(meters);
        identityBusy = Counter.builder("mqttgw.auth.http.identity.refused").tag("cause", "busy")
                .description("CONNECTs refused without a call by a per-identity bound: held after "
                        + "auth.http.identity.denied-calls denies, or busy with auth.http.identity.max-in-flight calls")
                .register(meters);
        Gauge.builder("mqttgw.auth.http.identity.tracked", identities, IdentityGuard::tracked)
                .description("Identities whose denied calls are counted (auth.http.identity.max-tracked)")
                .register(meters);
        Gauge.builder("mqttgw.auth.http.identity.busy", identities, IdentityGuard::busyIdentities)
                .description("Identities with a call queued or in flight").register(meters);
        // the cache's own statistics (Caffeine's recordStats), under the gateway's names
        FunctionCounter.builder("mqttgw.auth.cache.hits", cache, c -> c.stats().hitCount())
                .description("CONNECTs answered from the cache").register(meters);
        FunctionCounter.builder("mqttgw.auth.cache.misses", cache, c -> c.stats().missCount())
                .description("CONNECTs the cache could not answer").register(meters);
        FunctionCounter.builder("mqttgw.auth.cache.evictions", cache, c -> c.stats().evictionCount())
                .description("Answers dropped by the size bound (auth.http.cache.max-entries) or at their expiry")
                .register(meters);
        coalesced = Counter.builder("mqttgw.auth.coalesced")
                .description("CONNECTs that shared the call in flight of an earlier CONNECT of the same device")
                .register(meters);
        latency = Timer.builder("mqttgw.auth.http.latency").description("Duration of calls to the auth service")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(30)).register(meters);
        Gauge.builder("mqttgw.auth.cache.entries", cache, ResultCache::size)
                .description("Answers in the cache").register(meters);
        Gauge.builder("mqttgw.auth.http.in.flight", limiter, CallLimiter::inFlight)
                .description("Calls to the auth service awaiting their answer").register(meters);
        Gauge.builder("mqttgw.auth.http.queued", limiter, CallLimiter::queued)
                .description("Calls waiting for a slot (auth.http.max-in-flight)").register(meters);
        Gauge.builder("mqttgw.auth.breaker.state", breaker, b -> b.state().ordinal())
                .description("Circuit breaker: 0 closed, 1 open, 2 half-open (a probe call in flight)")
                .register(meters);
        FunctionCounter.builder("mqttgw.auth.breaker.opened", breaker, CircuitBreaker::timesOpened)
                .description("Times the circuit breaker opened").register(meters);
    }

    void result(AuthResult result, Source source) {
        results[result.decision().ordinal()][source.ordinal()].increment();
    }

    void call(String outcome) {
        calls.getOrDefault(outcome, calls.get("error")).increment();
    }

    void skipped(String cause) {
        skipped.get(cause).increment();
    }

    void identityRefused(boolean held) {
        (held ? identityHeld : identityBusy).increment();
    }

    void coalesced() {
        coalesced.increment();
    }

    void latency(long nanos) {
        latency.record(nanos, TimeUnit.NANOSECONDS);
    }
}
