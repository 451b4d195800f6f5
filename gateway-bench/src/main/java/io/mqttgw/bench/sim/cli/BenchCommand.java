package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.scenario.ScenarioException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The top-level {@code bench} command: {@code pki}, {@code compare} (saved runs side by side), the scenarios
 * {@code connect}, {@code publish}, {@code storm}, {@code soak} and {@code fleet}, {@code completion} (a bash/zsh
 * completion script) and {@code help}. Exit status: 0 scenario goal met, 1 not met, 2 bad arguments, 3 gateway
 * unreachable or a worker failed. Main thread only.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        synopsisSubcommandLabel = "COMMAND",
        description = "Simulated MQTT devices over mutual TLS against a gateway (or any MQTT broker); each scenario "
                + "writes summary.json and report.html.",
        subcommands = {PkiCommand.class, CompareCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Run 'bench COMMAND --help' for a command's options. Bash/zsh completion: "
                + "source <(bench completion)", "Exit status: 0 goal met, 1 not met, 2 bad arguments, 3 gateway "
                + "unreachable or a worker failed."})
public final class BenchCommand {
    public static final int GOAL_MET = 0;
    public static final int GOAL_NOT_MET = 1;
    public static final int BAD_ARGUMENTS = 2;
    public static final int RUN_FAILED = 3;

    private static final Map<Scenario, String> DESCRIPTIONS = Map.of(
            Scenario.CONNECT, "Ramp to N devices at --ramp-rate and hold them for --hold; handshake rate, CONNACK "
                    + "latency, gateway CPU and memory per connection.",
            Scenario.PUBLISH, "Ramp, then publish at --rate for --duration; PUBLISH to PUBACK latency and gateway "
                    + "CPU per message.",
            Scenario.STORM, "Ramp, drop --drop of the devices at once and let them reconnect with full-jitter "
                    + "backoff; time to recover, failures by reason, collateral drops.",
            Scenario.SOAK, "Ramp and hold for a long time (default 1h) with the field traffic profile; drift of "
                    + "gateway memory and latency.",
            Scenario.FLEET, "Play the L4 balancer over --nodes: spread the devices, hold, then --action kill (SIGKILL "
                    + "one node) or rolling (--restart-command per node); time until every device is back, failed "
                    + "attempts, resumed share, collateral drops, PINGRESP latency, QoS 1 resent and lost.");

    private BenchCommand() {
    }

    /** The command tree, writing to {@code out} and {@code err}. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new BenchCommand());
        for (Scenario s : Scenario.values()) {
            CommandLine sub = new CommandLine(new ScenarioCommand(s));
            sub.getCommandSpec().usageMessage().description(DESCRIPTIONS.get(s));
            cl.addSubcommand(s.name().toLowerCase(Locale.ROOT), sub);
        }
        CommandLine completion = new CommandLine(new AutoComplete.GenerateCompletion());
        // picocli hides this command by default; users look for it, so it is listed
        completion.getCommandSpec().name("completion").usageMessage().hidden(false)
                .description("Print a bash/zsh completion script: source <(bench completion)");
        cl.addSubcommand("completion", completion);
        Converters.registerAll(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler(BenchCommand::badArguments);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> failed(e, commandLine));
        cl.setExecutionStrategy(new CommandLine.RunLast());
        return cl;
    }

    /** Parses {@code args} of {@code scenario} (tests, worker processes); any problem is a BadArgumentException. */
    public static BenchOptions parseScenario(Scenario scenario, List<String> args) {
        CommandLine cl = commandLine(new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8),
                true),
                    new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        String name = scenario.name().toLowerCase(Locale.ROOT);
        CommandLine sub = cl.getSubcommands().get(name);
        try {
            List<String> all = new java.util.ArrayList<>(args.size() + 1);
            all.add(name);
            all.addAll(args);
            cl.parseArgs(all.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new BadArgumentException(message(e));
        }
        return ((ScenarioCommand) sub.getCommand()).toOptions();
    }

    /** picocli's message, plus the closest option names when the argument was not known. */
    static String message(ParameterException e) {
        String msg = e.getMessage();
        if (e instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            msg += "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
        }
        return msg;
    }

    private static int badArguments(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandSpec().qualifiedName() + ": " + message(e));
        err.println("run '" + cl.getCommandSpec().qualifiedName() + " --help' for the options");
        err.flush();
        return BAD_ARGUMENTS;
    }

    private static int failed(Exception e, CommandLine cl) {
        PrintWriter err = cl.getErr();
        String name = cl.getCommandSpec().qualifiedName();
        if (e instanceof BadArgumentException) {
            err.println(name + ": " + e.getMessage());
            err.println("run '" + name + " --help' for the options");
            err.flush();
            return BAD_ARGUMENTS;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            err.println(name + ": interrupted");
        } else if (e instanceof ScenarioException) {
            err.println(name + ": " + e.getMessage());
        } else {
            err.println(name + ": " + e);
            e.printStackTrace(err);
        }
        err.flush();
        return RUN_FAILED;
    }
}
