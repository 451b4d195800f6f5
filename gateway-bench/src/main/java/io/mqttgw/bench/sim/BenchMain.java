package io.mqttgw.bench.sim;

import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.OptionsParser;
import io.mqttgw.bench.sim.config.RawArgs;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.bench.sim.report.HtmlReport;
import io.mqttgw.bench.sim.scenario.RunResult;
import io.mqttgw.bench.sim.scenario.ScenarioException;
import io.mqttgw.bench.sim.scenario.ScenarioRunner;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@code bench <subcommand> [options]}: {@code pki} writes the bench CA and server certificate; {@code connect},
 * {@code publish}, {@code storm} and {@code soak} run a scenario and write {@code summary.json} and
 * {@code report.html}. Exit status: 0 scenario goal met, 1 not met, 2 bad arguments, 3 gateway unreachable or a
 * worker failed.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args), new PrintStream(System.out, true, StandardCharsets.UTF_8),
                System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || Set.of("help", "-h", "--help").contains(args.get(0))) {
            out.print(OptionsParser.usage());
            return args.isEmpty() ? 2 : 0;
        }
        String command = args.get(0);
        List<String> rest = args.subList(1, args.size());
        try {
            if (command.equals("pki")) {
                return pki(rest, out);
            }
            Scenario scenario;
            try {
                scenario = Scenario.valueOf(command.toUpperCase());
            } catch (IllegalArgumentException e) {
                throw new BadArgumentException("unknown subcommand '" + command
                        + "'; use pki, connect, publish, storm or soak");
            }
            BenchOptions options = OptionsParser.parse(scenario, rest);
            RunResult result = new ScenarioRunner(options, out).run();
            HtmlReport.write(result, options.run().outDir());
            out.println("summary: " + options.run().outDir().resolve("summary.json"));
            out.println("report:  " + options.run().outDir().resolve("report.html"));
            if (!result.ok()) {
                err.println("scenario goal not met: " + result.summary().get("problems"));
            }
            return result.ok() ? 0 : 1;
        } catch (BadArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.println("run 'bench help' for the options");
            return 2;
        } catch (ScenarioException e) {
            err.println("bench: " + e.getMessage());
            return 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench: interrupted");
            return 3;
        } catch (Exception e) {
            err.println("bench: " + e);
            e.printStackTrace(err);
            return 3;
        }
    }

    private static int pki(List<String> args, PrintStream out) {
        RawArgs a = RawArgs.parse(args, Set.of("pki-dir", "algorithm"));
        Path dir = Path.of(a.string("pki-dir", "bench-pki"));
        BenchPki pki = BenchPki.open(dir, a.choice("algorithm", KeyAlgorithm.EC, KeyAlgorithm.class));
        out.println("bench PKI (" + pki.algorithm().name() + ") in " + dir.toAbsolutePath());
        out.println("gateway settings:");
        out.println("  listener.tls.cert-file: " + pki.serverCertFile().toAbsolutePath());
        out.println("  listener.tls.key-file: " + pki.serverKeyFile().toAbsolutePath());
        out.println("  listener.tls.ca-file: " + pki.caFile().toAbsolutePath());
        return 0;
    }
}
