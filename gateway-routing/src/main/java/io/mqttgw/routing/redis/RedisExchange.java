package io.mqttgw.routing.redis;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * One exchange with Redis of a job the flusher does between flushes ({@link FlusherIdleJobs}): what was sent, as the
 * answer to come, and what the flusher does with that answer on its own thread once it came, which may be the next
 * exchange of the same chunk of work. The flusher never waits for the answer, so a master that hangs holds up the job
 * that asked it and nothing else. {@code settle} runs whatever the outcome, before anything else: an answer, a failure,
 * or the flusher giving up on it.
 *
 * @param <T> what the answer carries
 */
final class RedisExchange<T> {
    /** What the flusher does with an answer: the next exchange, or null when the chunk of work is done. */
    @FunctionalInterface
    interface Then<T> {
        RedisExchange<?> apply(T answer) throws Exception;
    }

    private final CompletableFuture<T> answer;
    private final Then<T> then;
    private final Runnable settle;

    private RedisExchange(CompletableFuture<T> answer, Then<T> then, Runnable settle) {
        this.answer = answer;
        this.then = then;
        this.settle = settle;
    }

    static <T> RedisExchange<T> of(CompletionStage<T> answer, Then<T> then) {
        return new RedisExchange<>(answer.toCompletableFuture(), then, () -> { });
    }

    static <T> RedisExchange<T> of(CompletionStage<T> answer, Then<T> then, Runnable settle) {
        return new RedisExchange<>(answer.toCompletableFuture(), then, settle);
    }

    CompletableFuture<T> answer() {
        return answer;
    }

    void settle() {
        settle.run();
    }

    /** The answer came without error: what to do next. Flusher thread. */
    RedisExchange<?> handle() throws Exception {
        return then.apply(answer.getNow(null));
    }

    /** The error an answer that came ended with, or null when it succeeded. */
    static Exception errorOf(CompletableFuture<?> answer) {
        try {
            answer.getNow(null);
            return null;
        } catch (CompletionException e) {
            return e.getCause() instanceof Exception cause ? cause : e;
        } catch (CancellationException e) {
            return new TimeoutException("cancelled");
        }
    }
}
