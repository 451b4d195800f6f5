package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.worker.WorkerCommand;
import java.time.Duration;

/** The coordinator's handle on one worker, in another process or in this JVM. Called from the coordinator thread. */
interface WorkerLink extends AutoCloseable {
    /** Waits until the worker has its credentials and fleet ready; false on timeout or failure (see {@link #error}). */
    boolean awaitReady(Duration timeout) throws InterruptedException;

    void send(WorkerCommand command);

    /**
     * CPU seconds the worker's process has used (NaN when unreadable); 0 for devices inside the coordinator's JVM,
     * whose CPU is the coordinator's.
     */
    double cpuSeconds();

    /** The worker's last error message, or null. */
    String error();

    /** Sends {@code stop} and waits (bounded) for the worker to end. */
    @Override
    void close();
}
