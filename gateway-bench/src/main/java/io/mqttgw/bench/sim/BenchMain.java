package io.mqttgw.bench.sim;

import io.mqttgw.bench.sim.cli.BenchCommand;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * {@code bench <command> [options]}; the commands are in {@link BenchCommand}. Exit status: 0 scenario goal met,
 * 1 not met, 2 bad arguments, 3 gateway unreachable or a worker failed.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
    }

    static int run(String[] args, PrintWriter out, PrintWriter err) {
        if (args.length == 0) {
            BenchCommand.commandLine(out, err).usage(err);
            return BenchCommand.BAD_ARGUMENTS;
        }
        return BenchCommand.commandLine(out, err).execute(args);
    }
}
