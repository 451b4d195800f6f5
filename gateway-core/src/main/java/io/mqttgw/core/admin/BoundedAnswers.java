package io.mqttgw.core.admin;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The lookups an operator request waits for (an event-loop copy, a route, a stored session), each bounded so a busy
 * node or a store that is down still gets an answer to the operator, with 503. A provider that throws instead of
 * failing its stage is turned into a failed stage, so every caller has one error path.
 *
 * <p>Stateless; callable from any thread, never waits.
 */
final class BoundedAnswers {
    /** Bound on an event-loop copy, a route lookup or a session read. */
    static final long TIMEOUT_SECONDS = 10;

    private BoundedAnswers() {
    }

    static CompletableFuture<Optional<Route>> route(OperatorApi api, String id) {
        CompletionStage<Optional<Route>> stage;
        try {
            stage = api.routes().lookup(id);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return bounded(stage.toCompletableFuture());
    }

    static CompletableFuture<Optional<SessionStore.SessionSummary>> session(OperatorApi api, String key) {
        CompletionStage<Optional<SessionStore.SessionSummary>> stage;
        try {
            stage = api.sessions().describe(key);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return bounded(stage.toCompletableFuture());
    }

    static <T> CompletableFuture<T> bounded(CompletableFuture<T> f) {
        // a copy: orTimeout on the caller's future would fail it for its other users too
        return f.thenApply(x -> x).orTimeout(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
