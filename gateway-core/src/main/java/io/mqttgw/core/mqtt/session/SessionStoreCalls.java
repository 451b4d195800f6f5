package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.metrics.GatewayMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * How the protocol handlers call the {@code SessionStore}: a provider that throws instead of failing its stage still
 * yields a failed stage (so an event loop never sees the exception), and every failure is counted under its
 * operation in {@code mqttgw_session_store_errors_total}. Callers decide what a failure means for the device.
 */
public final class SessionStoreCalls {
    private SessionStoreCalls() {
    }

    /** @param operation one of {@link GatewayMetrics#SESSION_STORE_OPERATIONS} */
    public static <T> CompletionStage<T> call(GatewayMetrics metrics, String operation,
                                       Supplier<? extends CompletionStage<T>> call) {
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return stage.whenComplete((ignored, error) -> {
            if (error != null) {
                metrics.sessionStoreError(operation);
            }
        });
    }
}
