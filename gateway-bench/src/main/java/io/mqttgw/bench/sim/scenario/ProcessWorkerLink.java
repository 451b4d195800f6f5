package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.worker.WorkerCommand;
import io.mqttgw.bench.sim.worker.WorkerLines;
import io.mqttgw.bench.sim.worker.WorkerMain;
import io.mqttgw.bench.sim.worker.WorkerReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A worker JVM started with this JVM's java binary and class path. Its stdout is read by one daemon thread that
 * turns stats lines into {@link WorkerReport}s for {@code sink}; its stderr goes to {@code worker-<i>.log}.
 */
final class ProcessWorkerLink implements WorkerLink {
    private final int index;
    private final Process process;
    private final Writer stdin;
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile String error;

    ProcessWorkerLink(int index, int count, List<String> jvmOptions, List<String> args, Path logDir,
                      Consumer<WorkerReport> sink) throws IOException {
        this.index = index;
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(WorkerMain.class.getName());
        cmd.addAll(args);
        cmd.add("--worker-index");
        cmd.add(Integer.toString(index));
        cmd.add("--worker-count");
        cmd.add(Integer.toString(count));
        this.process = new ProcessBuilder(cmd).redirectError(logDir.resolve("worker-" + index + ".log").toFile())
                .start();
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> read(sink), "worker-" + index + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public double cpuSeconds() {
        return ProcessCpu.seconds(process.pid());
    }

    private void read(Consumer<WorkerReport> sink) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("{")) {
                    continue;
                }
                WorkerLines.Line m;
                try {
                    m = WorkerLines.parse(line);
                } catch (IllegalArgumentException e) {
                    error = "unreadable line from worker " + index + ": " + e.getMessage();
                    continue;
                }
                switch (m.type()) {
                    case "ready" -> ready.countDown();
                    case "stats" -> sink.accept(m.stats());
                    case "error" -> error = m.message();
                    default -> { }
                }
            }
        } catch (IOException e) {
            error = "worker " + index + " output failed: " + e.getMessage();
        }
        if (process.isAlive()) {
            return;
        }
        if (error == null) {
            error = "worker " + index + " exited with status " + process.exitValue();
        }
        ready.countDown();
    }

    @Override
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready.await(200, TimeUnit.MILLISECONDS)) {
                return error == null || process.isAlive();
            }
            if (!process.isAlive()) {
                process.waitFor(1, TimeUnit.SECONDS);
                if (error == null) {
                    error = "worker " + index + " exited with status " + process.exitValue() + " before it was ready";
                }
                return false;
            }
        }
        error = "worker " + index + " not ready after " + timeout.toSeconds() + " s";
        return false;
    }

    @Override
    public synchronized void send(WorkerCommand command) {
        try {
            stdin.write(command.line());
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            error = "cannot send '" + command.line() + "' to worker " + index + ": " + e.getMessage();
        }
    }

    @Override
    public String error() {
        return error;
    }

    @Override
    public void close() {
        send(WorkerCommand.stop());
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
