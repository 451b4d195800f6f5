package io.mqttgw.routing.session;

import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.routing.redis.RedisConnector;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the session store talks to Redis: every script call goes through here, so that a call made before Redis has
 * answered once fails at once ({@link SessionStoreNotConnectedException}) instead of connecting on the caller's
 * thread, the calls of one client id run in Redis in the order made ({@link #inOrder}), the calls in flight are
 * counted for close, and the last success and failure feed the store's health.
 *
 * <p>Threading: called from any thread (mostly event loops); never blocks. Stages complete on the Redis client's
 * threads, and a retry of {@link #untilAnswered} runs on {@link CompletableFuture#delayedExecutor}. Thread-safe.
 */
final class SessionCalls {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final long FIRST_RETRY_MILLIS = 100;
    /** A try starts only with this long left after its backoff: its answer must come before the wait ends. */
    private static final long RETRY_MARGIN_MILLIS = 200;

    private final RScript script;
    private final RedisConnector connector;
    /** The last operation chained per client id ({@link #inOrder}); removed when it completes. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> sessionChains = new ConcurrentHashMap<>();
    private final AtomicLong lastSuccessNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong lastFailureNanos = new AtomicLong();
    /**
     * When the oldest call that failed for Redis's absence since its last answer was sent (or that answer, if later);
     * 0 while Redis answers.
     */
    private final AtomicLong unansweredSinceNanos = new AtomicLong();
    private volatile String lastFailure = "";
    private final AtomicLong refused = new AtomicLong();
    /** Calls made and not completed yet, chained ones included: close waits for them. */
    private final AtomicInteger unfinished = new AtomicInteger();
    private final AtomicLong failuresLogged = new AtomicLong();
    private final AtomicLong failuresUnlogged = new AtomicLong();
    private volatile boolean closing;
    /** Runs after each call Redis answered: owed work is retried as soon as Redis is back. */
    private volatile Runnable afterAnswer = () -> { };

    SessionCalls(RedissonClient client, RedisConnector connector) {
        this.script = client.getScript(ByteArrayCodec.INSTANCE);
        this.connector = connector;
    }

    /** Set once, before the first call. */
    void afterAnswer(Runnable r) {
        this.afterAnswer = r;
    }

    static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    boolean connected() {
        return connector.connected();
    }

    boolean closing() {
        return closing;
    }

    /** From now on no call is retried and no owed work is sent after an answer. */
    void markClosing() {
        closing = true;
    }

    int unfinished() {
        return unfinished.get();
    }

    /** Calls failed at once because Redis had not answered yet ({@link RedisConnector}). */
    long refusedCount() {
        return refused.get();
    }

    <T> CompletionStage<T> eval(String key, String text, RScript.ReturnType type, List<Object> scriptKeys,
                                Object... args) {
        if (!connector.connected()) {
            refused.incrementAndGet();
            return CompletableFuture.failedFuture(SessionStoreNotConnectedException.INSTANCE);
        }
        long sent = System.nanoTime();
        CompletableFuture<T> result;
        try {
            result = script.<T>evalAsync(key, RScript.Mode.READ_WRITE, text, type, scriptKeys, args)
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        unfinished.incrementAndGet();
        return result.whenComplete((ignored, error) -> {
            unfinished.decrementAndGet();
            if (error == null) {
                lastSuccessNanos.set(System.nanoTime());
                unansweredSinceNanos.set(0);
                if (!closing) {
                    afterAnswer.run();
                }
            } else {
                lastFailure = error.toString();
                lastFailureNanos.set(System.nanoTime());
                if (unavailable(error)) {
                    // a call sent before Redis's last answer counts from that answer: Redis was there then
                    long answered = lastSuccessNanos.get();
                    long since = sent - answered > 0 ? sent : answered;
                    unansweredSinceNanos.accumulateAndGet(since, (cur, s) -> cur == 0 || s - cur < 0 ? s : cur);
                }
            }
        });
    }

    /**
     * How long Redis has answered no call while calls failed for its absence (down, hung, failing over), from the
     * oldest such call; 0 while it answers.
     */
    long unansweredNanos() {
        long since = unansweredSinceNanos.get();
        return since == 0 ? 0 : Math.max(1, System.nanoTime() - since);
    }

    HealthStatus health() {
        if (!connector.connected()) {
            return HealthStatus.degraded("redis session store not connected yet: " + connector.lastError());
        }
        long failed = lastFailureNanos.get();
        if (failed != 0 && failed - lastSuccessNanos.get() > 0) {
            return HealthStatus.degraded("redis session store failing: " + lastFailure);
        }
        return HealthStatus.UP;
    }

    /**
     * A failed call, in the log at most once a minute (with how many more failed meanwhile): the metrics count every
     * one, but an operator reading the log must see that persistent sessions are not served.
     */
    void logFailure(String what, String clientId, Throwable error) {
        long now = System.nanoTime();
        long last = failuresLogged.get();
        if ((last == 0 || now - last >= TimeUnit.MINUTES.toNanos(1))
                && failuresLogged.compareAndSet(last, now)) {
            long more = failuresUnlogged.getAndSet(0);
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            LOG.warn("session store: {} of {} failed ({}){}", what, clientId, cause.toString(),
                    more > 0 ? "; " + more + " more session store calls failed since the last report" : "");
        } else {
            failuresUnlogged.incrementAndGet();
        }
    }

    /** {@code call} as {@link #untilAnswered(Supplier, long, long)} with the first backoff. */
    <T> CompletionStage<T> untilAnswered(Supplier<CompletionStage<T>> call, long deadline) {
        return untilAnswered(call, deadline, FIRST_RETRY_MILLIS);
    }

    /**
     * {@code call}, asked again after {@code backoffMillis} (doubling up to a second) while Redis does not answer
     * and a try still fits before {@code deadline}; a script error or a closing store ends it at once.
     */
    private <T> CompletionStage<T> untilAnswered(Supplier<CompletionStage<T>> call, long deadline,
                                                 long backoffMillis) {
        CompletableFuture<T> result = new CompletableFuture<>();
        call.get().whenComplete((r, error) -> {
            if (error == null) {
                result.complete(r);
                return;
            }
            long left = deadline - System.nanoTime()
                    - TimeUnit.MILLISECONDS.toNanos(backoffMillis + RETRY_MARGIN_MILLIS);
            if (closing || left <= 0 || !unavailable(error)) {
                result.completeExceptionally(error);
                return;
            }
            CompletableFuture.delayedExecutor(backoffMillis, TimeUnit.MILLISECONDS).execute(() ->
                    untilAnswered(call, deadline, Math.min(backoffMillis * 2, 1000)).whenComplete((again, e) -> {
                        if (e == null) {
                            result.complete(again);
                        } else {
                            result.completeExceptionally(e);
                        }
                    }));
        });
        return result;
    }

    /** Redis away (connection lost or refused, timeout, cluster down or failing over), not a script's own error. */
    private static boolean unavailable(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof RedisException && (e.getMessage() == null || !e.getMessage().startsWith("ERR"));
    }

    /** {@code op} chained behind the previous call of {@code clientId}, and counted until it completes. */
    <T> CompletionStage<T> inOrder(String clientId, Supplier<CompletionStage<T>> op) {
        unfinished.incrementAndGet();
        return inOrder(sessionChains, clientId, op).whenComplete((r, e) -> unfinished.decrementAndGet());
    }

    /**
     * Runs {@code op} once the previous operation chained under {@code key} has completed (successfully or not).
     * Redisson spreads commands over a pool of connections, so two scripts sent one after the other may run in
     * Redis in either order; the chain keeps the caller's order per client id (and per retained topic). The op
     * runs outside the map's locks (a callback may chain again).
     */
    static <T> CompletionStage<T> inOrder(ConcurrentHashMap<String, CompletableFuture<Void>> chains,
                                          String key, Supplier<CompletionStage<T>> op) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> previous = chains.put(key, mine);
        CompletableFuture<T> result = (previous == null ? DONE : previous).thenCompose(v -> {
            try {
                return op.get();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        // 'mine' always completes normally, so a failed operation does not stop the ones behind it
        result.whenComplete((r, e) -> {
            chains.remove(key, mine);
            mine.complete(null);
        });
        return result;
    }
}
