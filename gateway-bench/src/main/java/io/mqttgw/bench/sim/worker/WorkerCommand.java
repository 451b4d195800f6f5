package io.mqttgw.bench.sim.worker;

import java.util.Locale;

/**
 * The one-line commands a coordinator sends a worker: {@code start}, {@code drop <fraction>},
 * {@code publish <rate> <qos> <bytes>}, {@code stop-publish}, {@code stop}. Immutable.
 */
public record WorkerCommand(String verb, double rate, int qos, int bytes) {
    public static WorkerCommand start() {
        return new WorkerCommand("start", 0, 0, 0);
    }

    public static WorkerCommand drop(double fraction) {
        return new WorkerCommand("drop", fraction, 0, 0);
    }

    public static WorkerCommand publish(double rate, int qos, int bytes) {
        return new WorkerCommand("publish", rate, qos, bytes);
    }

    public static WorkerCommand stopPublishing() {
        return new WorkerCommand("stop-publish", 0, 0, 0);
    }

    public static WorkerCommand stop() {
        return new WorkerCommand("stop", 0, 0, 0);
    }

    public String line() {
        return switch (verb) {
            case "drop" -> String.format(Locale.ROOT, "drop %.6f", rate);
            case "publish" -> String.format(Locale.ROOT, "publish %.3f %d %d", rate, qos, bytes);
            default -> verb;
        };
    }

    public static WorkerCommand parse(String line) {
        String[] p = line.trim().split("\\s+");
        try {
            return switch (p[0]) {
                case "start", "stop", "stop-publish" -> new WorkerCommand(p[0], 0, 0, 0);
                case "drop" -> drop(Double.parseDouble(p[1]));
                case "publish" -> publish(Double.parseDouble(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3]));
                default -> throw new IllegalArgumentException("unknown worker command '" + line + "'");
            };
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            throw new IllegalArgumentException("malformed worker command '" + line + "'", e);
        }
    }

    /** Applies this command to {@code runtime}; returns the number dropped for {@code drop}, else 0. */
    public int applyTo(WorkerRuntime runtime) {
        switch (verb) {
            case "start" -> runtime.start();
            case "drop" -> {
                return runtime.drop(rate);
            }
            case "publish" -> runtime.publish(rate, qos, bytes);
            case "stop-publish" -> runtime.stopPublishing();
            default -> { }
        }
        return 0;
    }
}
