package io.mqttgw.core.mqtt.connect;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How CONNECT takes an asynchronous answer: at once when it is there, else handed back to the event loop. Stateless.
 */
final class Answers {
    private Answers() {
    }

    /**
     * The stage when it has its answer already, else null. Only a plain {@link CompletableFuture} is asked: a stage of
     * another kind may not answer {@code isDone} (a minimal stage throws), and waiting for it is always correct.
     */
    @SuppressWarnings("unchecked")
    static <T> CompletableFuture<T> now(CompletionStage<T> stage) {
        return stage != null && stage.getClass() == CompletableFuture.class
                && ((CompletableFuture<T>) stage).isDone() ? (CompletableFuture<T>) stage : null;
    }

    /** Runs {@code task} on {@code loop}: now when called there, else queued to it. Any thread. */
    static void onLoop(EventExecutor loop, Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }
}
