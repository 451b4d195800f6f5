package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.worker.WorkerCommand;
import io.mqttgw.bench.sim.worker.WorkerReport;
import io.mqttgw.bench.sim.worker.WorkerRuntime;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * All devices inside the coordinator's JVM ({@code --workers 0}; tests and small runs). One daemon thread builds
 * the runtime, runs commands and reports once a second, as a worker process would.
 */
final class InProcessWorkerLink implements WorkerLink {
    private final ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-worker-control");
        t.setDaemon(true);
        return t;
    });
    private volatile WorkerRuntime runtime;
    private volatile String error;
    private final java.util.concurrent.Future<?> building;

    InProcessWorkerLink(BenchOptions options, Consumer<WorkerReport> sink) {
        building = control.submit(() -> {
            try {
                runtime = new WorkerRuntime(options, 0, 1, n -> { });
                control.scheduleAtFixedRate(() -> sink.accept(runtime.report()), 1, 1, TimeUnit.SECONDS);
            } catch (Exception | Error e) {
                error = "cannot start the devices: " + e;
            }
        });
    }

    @Override
    public double cpuSeconds() {
        return 0;
    }

    @Override
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        try {
            building.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            error = "devices not ready: " + e;
        }
        return runtime != null && error == null;
    }

    @Override
    public void send(WorkerCommand command) {
        control.execute(() -> {
            if (runtime != null) {
                command.applyTo(runtime);
            }
        });
    }

    @Override
    public String error() {
        return error;
    }

    @Override
    public void close() {
        try {
            control.submit(() -> {
                if (runtime != null) {
                    runtime.close();
                }
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            error = "close failed: " + e;
        } finally {
            control.shutdownNow();
        }
    }
}
