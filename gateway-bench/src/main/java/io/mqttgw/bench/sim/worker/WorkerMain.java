package io.mqttgw.bench.sim.worker;

import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.Scenario;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Entry point of a worker process, started by the coordinator with the run's options plus
 * {@code --worker-index}/{@code --worker-count}. Prints {@code ready}, then one stats line a second; executes
 * commands from stdin on the main thread; stops on {@code stop}, on end of stdin (the coordinator is gone) or after
 * the sum of the scenario's time bounds plus an hour at the latest. Diagnostics go to stderr.
 */
public final class WorkerMain {
    private WorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BenchOptions options = BenchCommand.parseScenario(Scenario.valueOf(args[0].toUpperCase(Locale.ROOT)),
                Arrays.asList(args).subList(1, args.length));
        int index = options.workerIndex();
        try (WorkerRuntime runtime = new WorkerRuntime(options, index, options.workerCount(),
                n -> System.err.println("worker " + index + ": " + n + " device certificates ready"))) {
            out.println(WorkerLines.ready(index, runtime.devices(), runtime.transport()));
            BlockingQueue<String> commands = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        commands.add(line);
                    }
                } catch (Exception e) {
                    System.err.println("worker " + index + ": stdin failed: " + e);
                }
                commands.add("stop");
            }, "worker-stdin");
            reader.setDaemon(true);
            reader.start();
            // the coordinator normally says stop long before; this bounds a worker whose coordinator hangs
            long deadline = System.nanoTime() + options.run().rampTimeout().toNanos() + options.run().hold().toNanos()
                    + options.run().duration().toNanos() + options.run().recoverTimeout().toNanos()
                    + TimeUnit.HOURS.toNanos(1);
            long nextReport = System.nanoTime();
            while (System.nanoTime() < deadline) {
                String line = commands.poll(Math.max(1, nextReport - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line != null) {
                    WorkerCommand command;
                    try {
                        command = WorkerCommand.parse(line);
                    } catch (IllegalArgumentException e) {
                        out.println(WorkerLines.error(index, e.getMessage()));
                        continue;
                    }
                    if (command.verb().equals("stop")) {
                        break;
                    }
                    int dropped = command.applyTo(runtime);
                    if (command.verb().equals("drop")) {
                        out.println(WorkerLines.dropped(index, dropped));
                    }
                }
                if (System.nanoTime() - nextReport >= 0) {
                    out.println(WorkerLines.stats(runtime.report()));
                    nextReport += TimeUnit.SECONDS.toNanos(1);
                }
            }
            out.println(WorkerLines.stats(runtime.report()));
        } catch (Exception e) {
            out.println(WorkerLines.error(index, String.valueOf(e)));
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
